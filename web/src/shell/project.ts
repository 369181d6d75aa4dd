import { createContext, useContext } from 'react';
import type { ProjectSummary } from '../api/session.ts';

export const ProjectContext = createContext<ProjectSummary | undefined>(undefined);

/** The open project (id, name, the user's role, its keys when the role may see them). */
export function useProject(): ProjectSummary {
  const project = useContext(ProjectContext);
  if (!project) throw new Error('useProject outside a project page');
  return project;
}

/** A path inside the open project: projectPath(id, 'contacts') → /p/{id}/contacts. */
export const projectPath = (projectId: string, ...parts: string[]) => ['/p', projectId, ...parts].join('/');
