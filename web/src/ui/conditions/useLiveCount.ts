import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, call } from '../../api/client.ts';
import { asApiError } from '../../api/errors.ts';
import { plainFieldMessage } from '../fieldErrors.ts';
import { filterPathOf, type Tree } from './tree.ts';

/**
 * How many contacts a tree selects now, counted by the server while the tree is edited (debounced):
 * the `total` of the audience check (POST /campaigns/audience), which counts every contact the
 * tree matches whatever its subscription, as a segment's member count does. A refused tree gives
 * its errors by filter path, for the builder to show at the filter.
 */
export function useLiveCount(projectId: string, tree: Tree | undefined, delayMs = 400) {
  // Debounced as text: the tree is a new object at every edit.
  const key = tree === undefined ? undefined : JSON.stringify(tree);
  const [debounced] = useDebouncedValue(key, delayMs);
  const query = useQuery({
    queryKey: ['conditions', projectId, 'count', debounced],
    queryFn: () =>
      call(api.POST('/campaigns/audience', { body: { audienceType: 'FILTERED', type: 'TRANSACTIONAL', audienceCondition: JSON.parse(debounced!) as Record<string, unknown> } })),
    enabled: debounced !== undefined,
    placeholderData: keepPreviousData,
    retry: false,
  });
  const error = asApiError(query.error);
  const errors: Record<string, string> = {};
  let general: string | undefined;
  for (const fieldError of error?.fieldErrors ?? []) {
    const at = filterPathOf(fieldError.field.replace(/^audienceCondition\.?/, ''));
    if (at) errors[at] = plainFieldMessage(fieldError);
    else general = plainFieldMessage(fieldError);
  }
  if (error && error.fieldErrors.length === 0) general = error.message;
  // The last tree the server counted without refusing it, as JSON text (it stays while the next one is counted).
  const [accepted, setAccepted] = useState<string>();
  const counted = query.isSuccess && !query.isPlaceholderData ? debounced : undefined;
  useEffect(() => {
    if (counted !== undefined) setAccepted(counted);
  }, [counted]);
  return {
    accepted: key === undefined ? undefined : accepted,
    count: query.isError ? undefined : query.data?.total,
    counting: query.isFetching || key !== debounced,
    errors,
    general,
  };
}
