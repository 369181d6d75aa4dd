import { TagsInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, call } from '../../api/client.ts';
import { useProject } from '../../shell/project.ts';

/** The events the service records itself (the API reference (Events)), offered before the project's own names. */
const FAMILIES = ['*', 'email.*', 'contact.*', 'segment.*'];
const EMAIL_EVENTS = ['email.sent', 'email.delivered', 'email.opened', 'email.clicked', 'email.bounced', 'email.complained', 'email.failed', 'email.suppressed'];
const CONTACT_EVENTS = ['contact.subscribed', 'contact.unsubscribed'];

/**
 * Which events an endpoint receives: exact names, families such as `email.*`, or `*` for all.
 * The project's tracked names are suggested too, and any other name can be typed.
 */
export function EventsPicker({ value, onChange, error }: { value: string[]; onChange: (events: string[]) => void; error?: string }) {
  const project = useProject();
  const names = useQuery({
    queryKey: ['event-names', project.id],
    queryFn: async () => (await call(api.GET('/events/names'))).data.map((e) => e.name),
  });
  const known = new Set([...FAMILIES, ...EMAIL_EVENTS, ...CONTACT_EVENTS]);
  const own = (names.data ?? []).filter((name) => !known.has(name) && !/^segment\./.test(name));
  const data = [
    { group: 'Families', items: FAMILIES },
    { group: 'Email', items: EMAIL_EVENTS },
    { group: 'Contacts', items: CONTACT_EVENTS },
    ...(own.length ? [{ group: 'Your events', items: own }] : []),
  ];
  return (
    <TagsInput
      label="Events"
      description="Pick exact names or families (email.* is every email event, * is every event); type any other event name and press Enter."
      placeholder={value.length ? undefined : 'email.bounced, contact.*, order.paid…'}
      data={data}
      value={value}
      onChange={onChange}
      error={error}
      splitChars={[',', ' ']}
      acceptValueOnBlur
      clearable
      clearButtonProps={{ 'aria-label': 'Remove every event' }}
      required
      maxDropdownHeight={260}
      comboboxProps={{ withinPortal: true }}
    />
  );
}
