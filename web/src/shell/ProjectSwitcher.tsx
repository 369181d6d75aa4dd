import { Button, Group, Select } from '@mantine/core';
import { Link, useNavigate } from 'react-router';
import type { ProjectSummary } from '../api/session.ts';

/** Opens another of the user's projects, or starts a new one. */
export function ProjectSwitcher({ projects, current }: { projects: ProjectSummary[]; current: ProjectSummary }) {
  const navigate = useNavigate();
  return (
    <Group gap="xs" wrap="nowrap">
      <Select
        aria-label="Project"
        data={projects.map((p) => ({ value: p.id, label: p.name }))}
        value={current.id}
        onChange={(id) => id && id !== current.id && navigate(`/p/${id}`)}
        allowDeselect={false}
        w={{ base: 150, sm: 220 }}
        comboboxProps={{ withinPortal: true }}
      />
      <Button component={Link} to="/new-project" variant="subtle" size="compact-sm" visibleFrom="xs">
        New project
      </Button>
    </Group>
  );
}
