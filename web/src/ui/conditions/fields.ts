import { useQuery } from '@tanstack/react-query';
import { api, call } from '../../api/client.ts';
import type { FieldKind } from './tree.ts';

export type FieldOption = { value: string; label: string; kind: FieldKind; group: string };

const EMAIL_ACTIVITIES = ['sent', 'delivered', 'opened', 'clicked', 'bounced', 'complained'];
const STANDARD: FieldOption[] = [
  { value: 'email', label: 'Email address', kind: 'string', group: 'Contact' },
  { value: 'subscribed', label: 'Subscribed', kind: 'boolean', group: 'Contact' },
  { value: 'createdAt', label: 'Created', kind: 'date', group: 'Contact' },
  { value: 'updatedAt', label: 'Updated', kind: 'date', group: 'Contact' },
];

/**
 * Every field a filter can test, grouped for the picker: the contact's standard fields, its data
 * keys with their inferred types (GET /contacts/fields), the events tracked (GET /events/names),
 * email activity, and the other segments (`exceptSegment`: a segment cannot name itself).
 */
export function useFieldOptions(projectId: string, exceptSegment?: string) {
  const fields = useQuery({ queryKey: ['contacts', projectId, 'fields'], queryFn: () => call(api.GET('/contacts/fields')), staleTime: 60_000 });
  const events = useQuery({ queryKey: ['events', projectId, 'names'], queryFn: () => call(api.GET('/events/names')), staleTime: 60_000 });
  const segments = useQuery({ queryKey: ['segments', projectId, 'list'], queryFn: () => call(api.GET('/segments')), staleTime: 30_000 });
  const options: FieldOption[] = [
    ...STANDARD,
    ...(fields.data?.data ?? []).filter((f) => !f.standard).map((f) => ({ value: `data.${f.name}`, label: f.name, kind: f.type as FieldKind, group: 'Contact data' })),
    ...(events.data?.data ?? []).map((e) => ({ value: `event.${e.name}`, label: e.name, kind: 'event' as const, group: 'Events' })),
    ...EMAIL_ACTIVITIES.map((a) => ({ value: `email.${a}`, label: `Email ${a}`, kind: 'event' as const, group: 'Email activity' })),
    ...(segments.data ?? []).filter((s) => s.id !== exceptSegment).map((s) => ({ value: `segment.${s.id}`, label: s.name, kind: 'segment' as const, group: 'Segments' })),
  ];
  return { options, loading: fields.isPending || events.isPending || segments.isPending };
}

/** The option of `field`, or a stand-in for one the lists do not (yet) know (a data key with no value yet). */
export function optionOf(options: FieldOption[], field: string): FieldOption {
  return options.find((o) => o.value === field) ?? { value: field, label: field.replace(/^data\./, ''), kind: field.startsWith('event.') ? 'event' : 'string', group: 'Other' };
}
