import { Center, Loader } from '@mantine/core';
import { Navigate } from 'react-router';
import { useMe, useProjects } from '../api/session.ts';
import { LoadError } from '../ui/LoadError.tsx';

const LAST_PROJECT = 'mailroom.lastProject';

export function rememberProject(id: string) {
  try {
    localStorage.setItem(LAST_PROJECT, id);
  } catch {}
}

/** `/`: the last project opened, else the first, else "new project"; the log-in page when logged out. */
export function HomeRedirect() {
  const me = useMe();
  const projects = useProjects(me.isSuccess);
  if (me.isError) return <Navigate to="/login" replace />;
  if (projects.isError) return <LoadError error={projects.error} what="your projects" />;
  if (!projects.data) {
    return (
      <Center mih="100vh">
        <Loader aria-label="Loading" />
      </Center>
    );
  }
  if (projects.data.length === 0) return <Navigate to="/new-project" replace />;
  let last: string | null = null;
  try {
    last = localStorage.getItem(LAST_PROJECT);
  } catch {}
  const target = projects.data.find((p) => p.id === last) ?? projects.data[0]!;
  return <Navigate to={`/p/${target.id}`} replace />;
}
