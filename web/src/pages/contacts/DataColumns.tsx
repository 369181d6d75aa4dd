import { MultiSelect } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, call } from '../../api/client.ts';

// The keys people name their contacts with: shown by default when the project has them.
const NAME_KEYS = ['firstName', 'first_name', 'lastName', 'last_name', 'name', 'company'];
const storageKey = (projectId: string) => `mailroom.contact-columns.${projectId}`;

function stored(projectId: string): string[] | undefined {
  try {
    const value = JSON.parse(localStorage.getItem(storageKey(projectId)) ?? 'null');
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The data keys shown as columns of the contacts table, chosen from the project's custom fields
 * (GET /contacts/fields) and remembered in this browser per project. Until a choice is made, the
 * name-like keys the project has are shown.
 */
export function useDataColumns(projectId: string) {
  const fields = useQuery({ queryKey: ['contacts', projectId, 'fields'], queryFn: () => call(api.GET('/contacts/fields')), staleTime: 60_000 });
  const keys = (fields.data?.data ?? []).filter((f) => !f.standard).map((f) => f.name);
  const [chosen, setChosen] = useState<string[] | undefined>(() => stored(projectId));
  useEffect(() => setChosen(stored(projectId)), [projectId]);
  const columns = chosen ?? NAME_KEYS.filter((k) => keys.includes(k));
  function choose(next: string[]) {
    setChosen(next);
    localStorage.setItem(storageKey(projectId), JSON.stringify(next));
  }
  return { keys, columns, choose };
}

export function DataColumnsPicker({ keys, columns, onChange }: { keys: string[]; columns: string[]; onChange: (columns: string[]) => void }) {
  return (
    <MultiSelect
      label="Data columns"
      description="Contact data shown in the table."
      placeholder={keys.length === 0 ? 'No data field yet' : columns.length === 0 ? 'Choose fields' : undefined}
      data={[...new Set([...keys, ...columns])]}
      value={columns}
      onChange={onChange}
      searchable
      clearable
      disabled={keys.length === 0 && columns.length === 0}
      miw={220}
      flex={1}
      maxDropdownHeight={260}
    />
  );
}
