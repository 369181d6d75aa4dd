import { useQuery } from '@tanstack/react-query';
import { api, call } from './client.ts';

export const sessionKeys = { me: ['me'] as const, projects: ['projects'] as const };

/** The logged-in user; fails with a 401 ApiError when nobody is. */
export function useMe() {
  return useQuery({ queryKey: sessionKeys.me, queryFn: () => call(api.GET('/users/@me')), retry: false });
}

/** The user's projects with their role (keys only for the roles that may see them). */
export function useProjects(enabled = true) {
  return useQuery({ queryKey: sessionKeys.projects, queryFn: async () => (await call(api.GET('/users/@me/projects'))).data, enabled });
}

export type ProjectSummary = NonNullable<ReturnType<typeof useProjects>['data']>[number];
