import { Alert, Group, Progress, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, call } from '../../api/client.ts';
import { LoadError } from '../../ui/LoadError.tsx';

export type Job = Awaited<ReturnType<typeof fetchJob>>;

function fetchJob(kind: 'bulk' | 'import', jobId: string) {
  return kind === 'bulk' ? call(api.GET('/contacts/bulk/{jobId}', { params: { path: { jobId } } })) : call(api.GET('/contacts/import/{jobId}', { params: { path: { jobId } } }));
}

const finished = (job: Job | undefined) => job?.status === 'completed' || job?.status === 'failed';

/** Polls a queued contacts job until it completes or fails. */
export function useJob(kind: 'bulk' | 'import', jobId: string | undefined, onDone?: (job: Job) => void) {
  return useQuery({
    queryKey: ['contact-job', kind, jobId],
    enabled: Boolean(jobId),
    queryFn: async () => {
      const job = await fetchJob(kind, jobId!);
      if (finished(job)) onDone?.(job);
      return job;
    },
    refetchInterval: (query) => (finished(query.state.data) ? false : 500),
  });
}

/** A job's progress bar while it runs, then its result with the first problems. */
export function JobProgress({ job, error, label }: { job: Job | undefined; error: unknown; label: string }) {
  if (error) return <LoadError error={error} what={`the progress of ${label}`} />;
  if (!job) return null;
  const percent = job.total > 0 ? Math.round((100 * job.processed) / job.total) : job.status === 'completed' ? 100 : 0;
  const done = finished(job);
  return (
    <Stack gap={6} role="status" aria-live="polite">
      <Group justify="space-between">
        <Text size="sm" fw={600}>
          {label}: {job.status === 'completed' ? 'done' : job.status === 'failed' ? 'failed' : job.status === 'queued' ? 'queued' : 'running'}
        </Text>
        <Text size="sm">
          {job.processed} of {job.total} processed · {job.succeeded} succeeded · {job.failed} failed
        </Text>
      </Group>
      <Progress value={percent} animated={!done} aria-label={`${label} progress`} color={job.status === 'failed' ? 'red' : undefined} />
      {job.error && (
        <Alert color="red" p="xs">
          {job.error}
        </Alert>
      )}
      {done && job.errors.length > 0 && (
        <Alert color="orange" p="xs" title={`${job.failed} row${job.failed === 1 ? '' : 's'} not written`}>
          {job.errors.slice(0, 10).map((e, i) => (
            <div key={i}>
              {e.row !== undefined ? `Row ${e.row}` : e.id}: {e.message}
            </div>
          ))}
        </Alert>
      )}
    </Stack>
  );
}
