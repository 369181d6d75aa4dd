import { useCallback, useEffect, useRef, useState } from 'react';

/** One structural edit of the canvas, with the API calls that take it back and make it again. */
export type Edit = { label: string; undo: () => Promise<unknown>; redo: () => Promise<unknown> };

/**
 * The undo history of one open workflow (docs/workflow-canvas.md): each edit is undone by its
 * inverse through the API, never by rewriting the graph locally. A redo that recreates a step or
 * an edge gets a new id; `resolve` maps an old id to the newest, so older entries still find it.
 */
export function useUndoHistory(workflowId: string) {
  const [state, setState] = useState<{ past: Edit[]; future: Edit[] }>({ past: [], future: [] });
  const aliases = useRef(new Map<string, string>());
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new workflow starts a new history
  useEffect(() => {
    setState({ past: [], future: [] });
    aliases.current = new Map();
  }, [workflowId]);
  const record = useCallback((edit: Edit) => setState((s) => ({ past: [...s.past, edit], future: [] })), []);
  const resolve = useCallback((id: string) => {
    let current = id;
    for (let next = aliases.current.get(current); next; next = aliases.current.get(current)) current = next;
    return current;
  }, []);
  const alias = useCallback((from: string, to: string) => {
    if (from !== to) aliases.current.set(from, to);
  }, []);
  /** Moves the newest edit of one side to the other, once its API calls succeeded. */
  const moved = useCallback(
    (direction: 'undo' | 'redo') =>
      setState((s) =>
        direction === 'undo' ? { past: s.past.slice(0, -1), future: [...s.future, s.past.at(-1)!] } : { past: [...s.past, s.future.at(-1)!], future: s.future.slice(0, -1) },
      ),
    [],
  );
  /** Forgets every edit: after one that cannot be taken back, the older ones would no longer fit the graph. */
  const clear = useCallback(() => setState({ past: [], future: [] }), []);
  return { past: state.past, future: state.future, record, resolve, alias, moved, clear };
}
