import { Anchor, Text } from '@mantine/core';
import { Link } from 'react-router';
import { projectPath } from '../../shell/project.ts';

/** Ids the service puts in its events' data (docs/decisions/sending.md), shown as links to their pages. */
const LINKS: Record<string, { page: string; label: string }> = {
  emailId: { page: 'emails', label: 'The email' },
  campaignId: { page: 'campaigns', label: 'The campaign' },
  workflowId: { page: 'workflows', label: 'The workflow' },
  templateId: { page: 'templates', label: 'The template' },
};

/** Words for the keys of service events; a key the customer chose is shown as written. */
const LABELS: Record<string, string> = {
  firstOpen: 'First open',
  bounceType: 'Bounce type',
  url: 'Link',
  segmentName: 'Segment',
  segmentId: 'Segment id',
  reason: 'Reason',
};

/** Nested objects flattened to dot paths, so every value is one readable line. */
function flatten(data: Record<string, unknown>, prefix = ''): [string, unknown][] {
  return Object.entries(data).flatMap(([key, value]) =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? flatten(value as Record<string, unknown>, `${prefix}${key}.`)
      : [[`${prefix}${key}`, value] as [string, unknown]],
  );
}

function readable(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'number') return value.toLocaleString();
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'object' ? JSON.stringify(v) : String(v))).join(', ');
  return String(value);
}

/** An event's data as labelled fields: ids as links to their pages, links as links, the rest as text. */
export function EventFields({ projectId, data }: { projectId: string; data: Record<string, unknown> }) {
  const entries = flatten(data);
  if (entries.length === 0) return null;
  return (
    <dl style={{ display: 'grid', gridTemplateColumns: 'minmax(6rem, max-content) 1fr', columnGap: '0.75rem', rowGap: 2, margin: '4px 0 0' }}>
      {entries.map(([key, value]) => {
        const link = LINKS[key];
        const url = key === 'url' && typeof value === 'string' && /^https?:\/\//.test(value);
        return [
          <Text key={`${key}-k`} component="dt" size="xs" c="dimmed">
            {link?.label ?? LABELS[key] ?? key}
          </Text>,
          <Text key={`${key}-v`} component="dd" size="xs" m={0} style={{ wordBreak: 'break-word' }}>
            {link && typeof value === 'string' ? (
              <Anchor component={Link} to={projectPath(projectId, link.page, value)} size="xs">
                Open {link.label.replace(/^The /, '').toLowerCase()}
              </Anchor>
            ) : url ? (
              <Anchor href={String(value)} target="_blank" rel="noreferrer noopener" size="xs">
                {String(value)}
              </Anchor>
            ) : (
              readable(value)
            )}
          </Text>,
        ];
      })}
    </dl>
  );
}
