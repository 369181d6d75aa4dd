import { Alert, Anchor, Badge, Button, Grid, Group, List, Modal, Paper, Select, SimpleGrid, Stack, Switch, Tabs, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, call } from '../../api/client.ts';
import { asApiError } from '../../api/errors.ts';
import { projectPath, useProject } from '../../shell/project.ts';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { PageHeader } from '../../ui/PageHeader.tsx';
import { StatusBadge, type Tone } from '../../ui/StatusBadge.tsx';
import { type AddTarget, Canvas, type Highlight } from './Canvas.tsx';
import { useUndoHistory } from './history.ts';
import { clearDraft, StepForm } from './StepForm.tsx';
import {
  type AddableType,
  type ExecutionDetail,
  type ExecutionStatus,
  fetchActiveByStep,
  fetchExecution,
  fetchExecutions,
  fetchVersions,
  fetchWorkflow,
  findContactByEmail,
  type Graph,
  type NewStep,
  type Simulation,
  STEP_LABELS,
  STEP_TYPES,
  type StepType,
  simulate,
  type Transition,
  time,
  workflowKeys,
} from './workflows.ts';

const STATUS_TONES: Record<ExecutionStatus, Tone> = { RUNNING: 'info', WAITING: 'warn', COMPLETED: 'good', EXITED: 'neutral', FAILED: 'bad', CANCELLED: 'neutral' };
const STATUSES: ExecutionStatus[] = ['RUNNING', 'WAITING', 'COMPLETED', 'EXITED', 'FAILED', 'CANCELLED'];

/** The path of a trace or a dry run, as highlighted steps and edges. */
function pathHighlight(stepIds: string[], tone: Highlight['tone']): Highlight {
  return { steps: new Set(stepIds), edges: new Set(stepIds.slice(1).map((id, i) => `${stepIds[i]}>${id}`)), tone };
}

function outputText(output: unknown): string | null {
  if (output === null || output === undefined) return null;
  const o = output as Record<string, unknown>;
  if (typeof o.status === 'number' && 'body' in o) return `HTTP ${o.status}: ${String(o.body ?? '').slice(0, 200)}`;
  return JSON.stringify(output).slice(0, 240);
}

function TraceList({ detail, names }: { detail: ExecutionDetail; names: Map<string, string> }) {
  const project = useProject();
  return (
    <Stack gap={6} component="ol" p={0} m={0} style={{ listStyle: 'none' }} aria-label="Trace">
      {detail.steps.map((s) => {
        const out = s.output as { emailId?: string } | null;
        return (
          <Paper key={s.stepId} withBorder p="xs" component="li">
            <Group justify="space-between" wrap="nowrap">
              <Text size="sm" fw={600}>
                {names.get(s.stepId) ?? STEP_LABELS[s.type as StepType] ?? s.type}
              </Text>
              <StatusBadge tone={s.status === 'FAILED' ? 'bad' : s.status === 'WAITING' ? 'warn' : 'good'}>{s.status}</StatusBadge>
            </Group>
            <Text size="xs" c="gray.8">
              {time(s.startedAt)}
              {s.completedAt ? ` → ${time(s.completedAt)}` : ''}
            </Text>
            {out?.emailId && (
              <Anchor size="xs" component={Link} to={projectPath(project.id, 'emails', out.emailId)}>
                The email sent
              </Anchor>
            )}
            {!out?.emailId && outputText(s.output) && (
              <Text size="xs" ff="monospace" style={{ wordBreak: 'break-all' }}>
                {outputText(s.output)}
              </Text>
            )}
            {s.error && (
              <Text size="xs" c="red.9">
                {s.error}
              </Text>
            )}
          </Paper>
        );
      })}
    </Stack>
  );
}

function savedView(key: string): { tab?: string; selected?: string } {
  try {
    return JSON.parse(localStorage.getItem(key) ?? '{}');
  } catch {
    return {};
  }
}

export function Component() {
  const project = useProject();
  const { workflowId = '' } = useParams();
  const queryClient = useQueryClient();
  // The open side tab and step come back after a reload, with the step form's unsaved draft (docs/workflow-canvas.md).
  const viewKey = `workflow:${workflowId}:view`;
  const [tab, setTab] = useState<string | null>(() => savedView(viewKey).tab ?? 'step');
  const [selected, setSelected] = useState<string | undefined>(() => savedView(viewKey).selected);
  useEffect(() => localStorage.setItem(viewKey, JSON.stringify({ tab, selected })), [viewKey, tab, selected]);
  const [adding, setAdding] = useState<AddTarget>();
  const [addType, setAddType] = useState<AddableType>();
  const [stepErrors, setStepErrors] = useState(new Map<string, string>());
  const [edgeErrors, setEdgeErrors] = useState(new Map<string, string>());
  const [status, setStatus] = useState<string | null>(null);
  const [search, setSearch] = useState('');
  const [searchContact, setSearchContact] = useState<string | null>();
  const [traceId, setTraceId] = useState<string>();
  const [viewVersion, setViewVersion] = useState<number>();
  const [dryEmail, setDryEmail] = useState('');
  const [dryEvent, setDryEvent] = useState('');
  const [dryData, setDryData] = useState('');
  const [dryRun, setDryRun] = useState<Simulation>();

  const workflow = useQuery({ queryKey: workflowKeys.one(project.id, workflowId), queryFn: () => fetchWorkflow(workflowId) });
  const executions = useQuery({
    queryKey: [...workflowKeys.executions(project.id, workflowId), status, searchContact],
    queryFn: () => fetchExecutions(workflowId, (status ?? undefined) as ExecutionStatus | undefined, searchContact || undefined),
    enabled: searchContact !== '',
    refetchInterval: 2000,
  });
  const waitingList = useQuery({
    queryKey: [...workflowKeys.executions(project.id, workflowId), 'active-by-step'],
    queryFn: () => fetchActiveByStep(workflowId),
    refetchInterval: 2000,
  });
  const versions = useQuery({ queryKey: workflowKeys.versions(project.id, workflowId), queryFn: () => fetchVersions(workflowId) });
  const trace = useQuery({
    queryKey: [...workflowKeys.executions(project.id, workflowId), 'trace', traceId],
    queryFn: () => fetchExecution(workflowId, traceId!),
    enabled: !!traceId,
    refetchInterval: 2000,
  });
  const templates = useQuery({ queryKey: ['templates-for-steps'], queryFn: async () => (await call(api.GET('/templates'))).data });

  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: workflowKeys.one(project.id, workflowId) });
    await queryClient.invalidateQueries({ queryKey: workflowKeys.versions(project.id, workflowId) });
  };
  const fail = (where: { step?: string; edge?: string }) => (error: unknown) => {
    const message = asApiError(error)?.message ?? String(error);
    if (where.step) setStepErrors((m) => new Map(m).set(where.step!, message));
    if (where.edge) setEdgeErrors((m) => new Map(m).set(where.edge!, message));
  };
  const clearErrors = () => {
    setStepErrors(new Map());
    setEdgeErrors(new Map());
  };

  // Undo and redo (docs/workflow-canvas.md): every structural edit is recorded with its inverse, applied through the API.
  const history = useUndoHistory(workflowId);
  const removeStep = (stepId: string) =>
    call(api.DELETE('/workflows/{id}/steps/{stepId}', { params: { path: { id: workflowId, stepId: history.resolve(stepId) }, query: { splice: 'true' } } }));
  const removeEdge = (transitionId: string) =>
    call(api.DELETE('/workflows/{id}/transitions/{transitionId}', { params: { path: { id: workflowId, transitionId: history.resolve(transitionId) } } }));
  const addEdge = async (oldId: string, edge: { fromStepId: string; toStepId: string; branch: Transition['branch'] }) => {
    const made = await call(
      api.POST('/workflows/{id}/transitions', {
        params: { path: { id: workflowId } },
        body: { fromStepId: history.resolve(edge.fromStepId), toStepId: history.resolve(edge.toStepId), branch: edge.branch },
      }),
    );
    history.alias(history.resolve(oldId), made.id);
  };
  const setConfig = (stepId: string, config: Record<string, unknown>) =>
    call(api.PATCH('/workflows/{id}/steps/{stepId}', { params: { path: { id: workflowId, stepId: history.resolve(stepId) } }, body: { config } }));
  const createStep = async (oldId: string, body: NewStep) => {
    const made = await call(api.POST('/workflows/{id}/steps', { params: { path: { id: workflowId } }, body }));
    history.alias(history.resolve(oldId), made.id);
  };
  /** The edge from `from` to `to` on `branch` in the graph as it is now (ids mapped to the newest). */
  const edgeNow = async (edge: { fromStepId: string; toStepId: string; branch: Transition['branch'] }) => {
    const now = await fetchWorkflow(workflowId);
    const found = now.transitions.find((t) => t.fromStepId === history.resolve(edge.fromStepId) && t.toStepId === history.resolve(edge.toStepId) && t.branch === edge.branch);
    if (!found) throw new Error('The edge this edit was made on is no longer there.');
    return found.id;
  };

  const patchWorkflow = useMutation({
    mutationFn: (body: { enabled?: boolean; allowReentry?: boolean; triggerConfig?: { eventName: string }; name?: string }) =>
      call(api.PATCH('/workflows/{id}', { params: { path: { id: workflowId } }, body })),
    onSuccess: refresh,
  });
  const addStep = useMutation({
    mutationFn: (body: NewStep) => call(api.POST('/workflows/{id}/steps', { params: { path: { id: workflowId } }, body })),
    onSuccess: async (step, body) => {
      const insertedOn = 'insertOn' in body && body.insertOn ? workflow.data?.transitions.find((t) => t.id === body.insertOn) : undefined;
      history.record({
        label: `add ${STEP_LABELS[step.type as StepType]}`,
        undo: () => removeStep(step.id),
        redo: async () => {
          if (insertedOn) return createStep(step.id, { ...body, insertOn: await edgeNow(insertedOn) });
          if ('after' in body && body.after) return createStep(step.id, { ...body, after: { ...body.after, stepId: history.resolve(body.after.stepId) } });
          return createStep(step.id, body);
        },
      });
      clearDraft(`workflow:${workflowId}:new:${addType}`);
      setAdding(undefined);
      setAddType(undefined);
      clearErrors();
      setSelected(step.id);
      await refresh();
    },
  });
  const patchStep = useMutation({
    mutationFn: ({ stepId, config }: { stepId: string; config: Record<string, unknown> }) =>
      call(api.PATCH('/workflows/{id}/steps/{stepId}', { params: { path: { id: workflowId, stepId } }, body: { config } })),
    onSuccess: async (step, { stepId, config }) => {
      const before = workflow.data?.steps.find((s) => s.id === stepId)?.config;
      if (before) history.record({ label: `change ${STEP_LABELS[step.type as StepType]}`, undo: () => setConfig(stepId, before), redo: () => setConfig(stepId, config) });
      clearDraft(`workflow:${workflowId}:${step.id}`);
      clearErrors();
      await refresh();
    },
  });
  const deleteStep = useMutation({
    mutationFn: (stepId: string) => call(api.DELETE('/workflows/{id}/steps/{stepId}', { params: { path: { id: workflowId, stepId }, query: { splice: 'true' } } })),
    onSuccess: async (_, stepId) => {
      const graph = workflow.data;
      const gone = graph?.steps.find((s) => s.id === stepId);
      const into = graph?.transitions.filter((t) => t.toStepId === stepId) ?? [];
      const out = graph?.transitions.filter((t) => t.fromStepId === stepId) ?? [];
      if (gone && into.length <= 1 && out.length <= 1) {
        const base = { type: gone.type, name: gone.name, config: gone.config } as NewStep;
        history.record({
          label: `delete ${STEP_LABELS[gone.type as StepType]}`,
          undo: async () => {
            const [from, to] = [into[0], out[0]];
            if (from && to) return createStep(stepId, { ...base, insertOn: await edgeNow({ fromStepId: from.fromStepId, toStepId: to.toStepId, branch: from.branch }) });
            if (from) return createStep(stepId, { ...base, after: { stepId: history.resolve(from.fromStepId), branch: from.branch } });
            return createStep(stepId, base);
          },
          redo: () => removeStep(stepId),
        });
      } else history.clear();
      setSelected(undefined);
      clearErrors();
      await refresh();
    },
    onError: (error, stepId) => fail({ step: stepId })(error),
  });
  const deleteEdge = useMutation({
    mutationFn: (transitionId: string) => call(api.DELETE('/workflows/{id}/transitions/{transitionId}', { params: { path: { id: workflowId, transitionId } } })),
    onSuccess: async (_, transitionId) => {
      const edge = workflow.data?.transitions.find((t) => t.id === transitionId);
      if (edge) history.record({ label: 'delete an edge', undo: () => addEdge(transitionId, edge), redo: () => removeEdge(transitionId) });
      clearErrors();
      await refresh();
    },
    onError: (error, transitionId) => fail({ edge: transitionId })(error),
  });
  const connect = useMutation({
    mutationFn: async ({ from, to }: { from: string; to: string }) => {
      const graph = workflow.data!;
      const step = graph.steps.find((s) => s.id === from)!;
      const used = new Set(graph.transitions.filter((t) => t.fromStepId === from).map((t) => t.branch));
      // A CONDITION's first free branch; a WAIT with a timeout: event, then timeout.
      const branch =
        step.type === 'CONDITION'
          ? used.has('yes')
            ? 'no'
            : 'yes'
          : step.type === 'WAIT_FOR_EVENT' && typeof step.config.timeoutSeconds === 'number'
            ? used.has('event')
              ? 'timeout'
              : 'event'
            : null;
      return call(api.POST('/workflows/{id}/transitions', { params: { path: { id: workflowId } }, body: { fromStepId: from, toStepId: to, branch } }));
    },
    onSuccess: async (made, { from, to }) => {
      const edge = { fromStepId: from, toStepId: to, branch: made.branch };
      history.record({ label: 'connect two steps', undo: () => removeEdge(made.id), redo: () => addEdge(made.id, edge) });
      clearErrors();
      await refresh();
    },
    onError: (error, { from }) => fail({ step: from })(error),
  });
  const travelRef = useRef<{ isPending: boolean; mutate: (direction: 'undo' | 'redo') => void }>({ isPending: false, mutate: () => {} });
  const readOnlyRef = useRef(false);
  // The history as last rendered: a click acts on the edit its button names, even before the mutation's options catch up.
  const historyRef = useRef(history);
  historyRef.current = history;
  // A shortcut pressed while an undo or redo is still being applied runs once that one has settled
  // (the newest such press), instead of being lost. `travelling` is set when a travel starts and
  // cleared only once its queued press has been taken, so no press falls between the two (a render's
  // isPending lags behind the mutation's settling).
  const pressedDuringTravel = useRef<'undo' | 'redo' | null>(null);
  const travelling = useRef(false);
  const startTravel = useCallback((direction: 'undo' | 'redo') => {
    if (travelling.current) {
      pressedDuringTravel.current = direction;
      return;
    }
    travelling.current = true;
    travelRef.current.mutate(direction);
  }, []);
  const travel = useMutation({
    mutationFn: async (direction: 'undo' | 'redo') => {
      const { past, future } = historyRef.current;
      const edit = direction === 'undo' ? past.at(-1) : future.at(-1);
      if (!edit) return;
      await edit[direction]();
      history.moved(direction);
    },
    onSettled: async () => {
      clearErrors();
      await refresh();
      const next = pressedDuringTravel.current;
      pressedDuringTravel.current = null;
      if (next) setTimeout(() => travelRef.current.mutate(next));
      else travelling.current = false;
    },
  });
  // Ctrl+Z undoes, Ctrl+Shift+Z (or Ctrl+Y) redoes, except while typing in a field.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || readOnlyRef.current) return;
      const target = e.target as HTMLElement | null;
      if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
      const key = e.key.toLowerCase();
      if (key !== 'z' && key !== 'y') return;
      e.preventDefault();
      startTravel(key === 'y' || e.shiftKey ? 'redo' : 'undo');
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [startTravel]);
  travelRef.current = travel;
  const cancel = useMutation({
    mutationFn: async (executionId?: string) => {
      if (executionId) await call(api.DELETE('/workflows/{id}/executions/{executionId}', { params: { path: { id: workflowId, executionId } } }));
      else await call(api.POST('/workflows/{id}/executions/cancel-all', { params: { path: { id: workflowId } } }));
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: workflowKeys.executions(project.id, workflowId) }),
  });
  const restore = useMutation({
    mutationFn: (version: number) => call(api.POST('/workflows/{id}/versions/{version}/restore', { params: { path: { id: workflowId, version } } })),
    onSuccess: async () => {
      setViewVersion(undefined);
      await refresh();
    },
  });
  const dry = useMutation({
    mutationFn: async () => {
      const contact = await findContactByEmail(dryEmail);
      if (!contact) throw new Error(`No contact has the email ${dryEmail}.`);
      let data: Record<string, unknown> | undefined;
      if (dryData.trim()) {
        try {
          data = JSON.parse(dryData);
        } catch {
          throw new Error('The event data is not valid JSON.');
        }
      }
      return simulate(workflowId, { contactId: contact.id, ...(dryEvent.trim() ? { event: { name: dryEvent.trim(), data } } : {}) });
    },
    onSuccess: (result) => {
      setTraceId(undefined);
      setViewVersion(undefined);
      setDryRun(result);
    },
  });
  const findContact = useMutation({
    mutationFn: async () => (search.trim() ? ((await findContactByEmail(search))?.id ?? '') : null),
    onSuccess: setSearchContact,
  });

  if (workflow.isPending) return <Loading rows={4} label="Loading the workflow" />;
  if (workflow.isError) return <LoadError error={workflow.error} what="the workflow" retry={() => workflow.refetch()} />;
  const w = workflow.data;

  // What the canvas shows: a version chosen in the Versions tab, the version a trace ran on, or the live graph.
  const traceVersion = traceId && trace.data && trace.data.workflowVersion !== w.version ? trace.data.workflowVersion : undefined;
  const shownVersion = viewVersion ?? traceVersion;
  const versionGraph = shownVersion ? versions.data?.data.find((v) => v.version === shownVersion) : undefined;
  const graph: Graph = versionGraph ?? w;
  const readOnly = !!versionGraph;
  readOnlyRef.current = readOnly;
  const names = new Map(graph.steps.map((s) => [s.id, s.name || STEP_LABELS[s.type]]));
  const waiting = new Map<string, number>();
  for (const row of waitingList.data?.data ?? []) if (row.waiting > 0) waiting.set(row.stepId, row.waiting);
  const highlight =
    traceId && trace.data
      ? pathHighlight(
          trace.data.steps.map((s) => s.stepId),
          'trace',
        )
      : dryRun
        ? pathHighlight(
            dryRun.path.map((p) => p.stepId),
            'dry-run',
          )
        : undefined;
  const selectedStep = graph.steps.find((s) => s.id === selected);
  const templateNames = new Map((templates.data ?? []).map((t) => [t.id, t.name]));
  // The server filters by contact (searchContact is '' when no contact has the searched email: nothing to show).
  const shownExecutions = searchContact === '' ? [] : (executions.data?.data ?? []);

  return (
    <Stack>
      <PageHeader
        title={w.name}
        description={
          <>
            <Anchor component={Link} to={projectPath(project.id, 'workflows')} underline="always">
              All workflows
            </Anchor>{' '}
            · version {w.version} · {w.triggerType === 'EVENT' ? `starts on the event ${w.triggerConfig.eventName}` : 'started through the API'}
          </>
        }
        actions={
          <Switch
            size="md"
            checked={w.enabled}
            onChange={() => patchWorkflow.mutate({ enabled: !w.enabled })}
            label={w.enabled ? 'Enabled' : 'Disabled'}
            aria-label={w.enabled ? 'Disable the workflow' : 'Enable the workflow'}
          />
        }
      />
      {patchWorkflow.isError && <ErrorMessage error={patchWorkflow.error} />}
      {readOnly && (
        <Alert color="indigo" title={`Version ${shownVersion} (read only)`}>
          <Group justify="space-between">
            <Text size="sm">{traceVersion && !viewVersion ? 'The selected execution runs on this version.' : 'An older version of the graph.'}</Text>
            <Group gap="xs">
              {viewVersion && (
                <Button size="xs" onClick={() => restore.mutate(viewVersion)} loading={restore.isPending}>
                  Restore version {viewVersion}
                </Button>
              )}
              <Button
                size="xs"
                variant="default"
                onClick={() => {
                  setViewVersion(undefined);
                  setTraceId(undefined);
                }}
              >
                Back to the newest version
              </Button>
            </Group>
          </Group>
        </Alert>
      )}
      <Grid>
        <Grid.Col span={{ base: 12, lg: 8 }}>
          {!readOnly && (
            <Group mb="xs" gap="xs">
              <Button size="compact-sm" variant="default" disabled={!history.past.length || travel.isPending} aria-keyshortcuts="Control+Z" onClick={() => startTravel('undo')}>
                {history.past.length ? `Undo ${history.past.at(-1)!.label}` : 'Undo'}
              </Button>
              <Button
                size="compact-sm"
                variant="default"
                disabled={!history.future.length || travel.isPending}
                aria-keyshortcuts="Control+Shift+Z"
                onClick={() => startTravel('redo')}
              >
                {history.future.length ? `Redo ${history.future.at(-1)!.label}` : 'Redo'}
              </Button>
              {travel.error && (
                <Text size="sm" c="red.9" role="alert">
                  {asApiError(travel.error)?.message ?? String(travel.error)}
                </Text>
              )}
            </Group>
          )}
          <Canvas
            label={readOnly ? `Workflow canvas, version ${shownVersion}` : 'Workflow canvas'}
            graph={graph}
            readOnly={readOnly}
            templates={templateNames}
            waiting={waiting}
            stepErrors={stepErrors}
            edgeErrors={edgeErrors}
            selected={selected}
            highlight={highlight}
            onAdd={(target) => {
              addStep.reset();
              setAddType(undefined);
              setAdding(target);
            }}
            onSelect={(stepId) => {
              setSelected(stepId);
              setTab('step');
            }}
            onDeleteEdge={(id) => deleteEdge.mutate(id)}
            onDeleteStep={(id, title) => {
              if (window.confirm(`Delete the step ${title}? The steps before and after it are joined.`)) deleteStep.mutate(id);
            }}
            onConnect={(from, to) => connect.mutate({ from, to })}
          />
          {!readOnly && (
            <Text size="xs" c="gray.8" mt={4}>
              Keys: Tab moves through the steps, the edges and their buttons; Enter opens or runs the one focused; Delete on a focused step deletes it, after asking, and joins its
              neighbours; Ctrl+Z undoes the last edit and Ctrl+Shift+Z redoes it.
            </Text>
          )}
          {highlight && (
            <Group mt="xs" gap="xs">
              <Text size="sm">{highlight.tone === 'trace' ? 'Highlighted: the path this execution took.' : 'Highlighted: the dry run’s path.'}</Text>
              <Button
                size="compact-sm"
                variant="default"
                onClick={() => {
                  setTraceId(undefined);
                  setDryRun(undefined);
                }}
              >
                Clear highlight
              </Button>
            </Group>
          )}
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 4 }}>
          <Tabs value={tab} onChange={setTab} keepMounted={false}>
            <Tabs.List>
              <Tabs.Tab value="step">Step</Tabs.Tab>
              <Tabs.Tab value="executions">Executions</Tabs.Tab>
              <Tabs.Tab value="versions">Versions</Tabs.Tab>
              <Tabs.Tab value="dry-run">Dry run</Tabs.Tab>
              <Tabs.Tab value="settings">Trigger</Tabs.Tab>
            </Tabs.List>
            <Tabs.Panel value="step" pt="sm">
              {!selectedStep && <Text size="sm">Choose a step on the canvas to change it, or add one with a “+” button.</Text>}
              {selectedStep && (
                <Stack>
                  <Title order={2} size="h4">
                    {names.get(selectedStep.id)}
                  </Title>
                  {selectedStep.type === 'TRIGGER' ? (
                    <Text size="sm">The entry point. Its event is set in the Trigger tab.</Text>
                  ) : (
                    <StepForm
                      key={selectedStep.id}
                      type={selectedStep.type}
                      config={selectedStep.config}
                      draftKey={`workflow:${workflowId}:${selectedStep.id}`}
                      submitLabel="Save step"
                      readOnly={readOnly}
                      eventName={workflow.data?.triggerConfig.eventName}
                      pending={patchStep.isPending}
                      error={patchStep.error}
                      onSubmit={(config) => patchStep.mutate({ stepId: selectedStep.id, config })}
                    />
                  )}
                  {!readOnly && selectedStep.type !== 'TRIGGER' && (
                    <Button variant="default" color="red" onClick={() => deleteStep.mutate(selectedStep.id)} loading={deleteStep.isPending}>
                      Delete step (joining its neighbours)
                    </Button>
                  )}
                </Stack>
              )}
            </Tabs.Panel>
            <Tabs.Panel value="executions" pt="sm">
              <Stack gap="sm">
                <Group grow align="flex-end">
                  <Select label="Status" placeholder="Any" data={STATUSES} value={status} onChange={setStatus} clearable />
                  <TextInput label="Contact email" value={search} onChange={(e) => setSearch(e.currentTarget.value)} onKeyDown={(e) => e.key === 'Enter' && findContact.mutate()} />
                </Group>
                <Group gap="xs">
                  <Button size="xs" variant="default" onClick={() => findContact.mutate()}>
                    Search
                  </Button>
                  <Button size="xs" variant="default" color="red" onClick={() => cancel.mutate(undefined)} loading={cancel.isPending && !cancel.variables}>
                    Cancel all running and waiting
                  </Button>
                </Group>
                {searchContact === '' && <Text size="sm">No contact has that email.</Text>}
                {cancel.isError && <ErrorMessage error={cancel.error} />}
                <Stack gap={6} component="ul" p={0} m={0} style={{ listStyle: 'none' }} aria-label="Executions">
                  {shownExecutions.map((e) => (
                    <Paper key={e.id} withBorder p="xs" component="li" style={{ borderWidth: traceId === e.id ? 2 : 1 }}>
                      <Group justify="space-between" wrap="nowrap">
                        <Text size="xs" ff="monospace">
                          {e.contactId.slice(0, 8)} · v{e.workflowVersion}
                        </Text>
                        <StatusBadge tone={STATUS_TONES[e.status]}>{e.status}</StatusBadge>
                      </Group>
                      <Text size="xs" c="gray.8">
                        {time(e.startedAt)}
                      </Text>
                      <Group gap="xs" mt={4}>
                        <Button
                          size="compact-xs"
                          variant="default"
                          onClick={() => {
                            setDryRun(undefined);
                            setViewVersion(undefined);
                            setTraceId(e.id);
                          }}
                          aria-label={`Show the trace of execution ${e.contactId.slice(0, 8)}`}
                        >
                          Trace
                        </Button>
                        {(e.status === 'RUNNING' || e.status === 'WAITING') && (
                          <Button size="compact-xs" variant="default" c="red.9" onClick={() => cancel.mutate(e.id)} aria-label={`Cancel execution ${e.contactId.slice(0, 8)}`}>
                            Cancel
                          </Button>
                        )}
                      </Group>
                    </Paper>
                  ))}
                </Stack>
                {executions.data?.data.length === 0 && <Text size="sm">No execution yet.</Text>}
                {traceId && trace.data && (
                  <Stack gap={6}>
                    <Title order={3} size="h5">
                      Trace: {trace.data.status} on version {trace.data.workflowVersion}
                    </Title>
                    {trace.data.error && (
                      <Text size="sm" c="red.9">
                        {trace.data.error}
                      </Text>
                    )}
                    <TraceList detail={trace.data} names={new Map([...names, ...new Map((versionGraph ?? w).steps.map((s) => [s.id, s.name || STEP_LABELS[s.type]]))])} />
                  </Stack>
                )}
              </Stack>
            </Tabs.Panel>
            <Tabs.Panel value="versions" pt="sm">
              <Stack gap={6} component="ul" p={0} m={0} style={{ listStyle: 'none' }} aria-label="Versions">
                {versions.data?.data.map((v) => (
                  <Paper key={v.version} withBorder p="xs" component="li">
                    <Group justify="space-between">
                      <Text fw={600} size="sm">
                        Version {v.version}
                        {v.version === w.version ? ' (newest)' : ''}
                      </Text>
                      {(v.executions.running > 0 || v.executions.waiting > 0) && (
                        <Badge color="orange.9">
                          {v.executions.running} running, {v.executions.waiting} waiting
                        </Badge>
                      )}
                    </Group>
                    <Text size="xs" c="gray.8">
                      {time(v.createdAt)} · {v.createdBy ?? 'before versions were kept'}
                    </Text>
                    <List size="xs">
                      {v.changes.map((c, i) => (
                        <List.Item key={i}>{c}</List.Item>
                      ))}
                    </List>
                    {v.version !== w.version && (
                      <Group gap="xs" mt={4}>
                        <Button
                          size="compact-xs"
                          variant="default"
                          onClick={() => {
                            setTraceId(undefined);
                            setDryRun(undefined);
                            setViewVersion(v.version);
                          }}
                        >
                          View version {v.version}
                        </Button>
                        <Button size="compact-xs" variant="default" onClick={() => restore.mutate(v.version)}>
                          Restore version {v.version}
                        </Button>
                      </Group>
                    )}
                  </Paper>
                ))}
              </Stack>
              {restore.isError && <ErrorMessage error={restore.error} />}
            </Tabs.Panel>
            <Tabs.Panel value="dry-run" pt="sm">
              <form
                onSubmit={(e) => {
                  e.preventDefault();
                  dry.mutate();
                }}
              >
                <Stack gap="sm">
                  <Text size="sm">What would happen to a contact entering now, on the newest version? Nothing is sent, called or changed.</Text>
                  <TextInput label="Contact email" required value={dryEmail} onChange={(e) => setDryEmail(e.currentTarget.value)} />
                  <SimpleGrid cols={1}>
                    <TextInput label="Event name (optional)" value={dryEvent} onChange={(e) => setDryEvent(e.currentTarget.value)} />
                    <Textarea label="Event data (JSON, optional)" value={dryData} onChange={(e) => setDryData(e.currentTarget.value)} autosize minRows={2} />
                  </SimpleGrid>
                  <Button type="submit" loading={dry.isPending}>
                    Run dry run
                  </Button>
                  {dry.isError && <ErrorMessage error={dry.error} />}
                  {dryRun && (
                    <Stack gap={6}>
                      <Title order={3} size="h5">
                        Result: {dryRun.result}
                      </Title>
                      <Stack gap={4} component="ol" p={0} m={0} style={{ listStyle: 'none' }} aria-label="Dry run path">
                        {dryRun.path.map((p) => (
                          <Paper key={p.stepId} withBorder p="xs" component="li">
                            <Text size="sm" fw={600}>
                              {names.get(p.stepId) ?? p.type} → {p.outcome}
                            </Text>
                            <Text size="xs">{p.detail}</Text>
                          </Paper>
                        ))}
                      </Stack>
                    </Stack>
                  )}
                </Stack>
              </form>
            </Tabs.Panel>
            <Tabs.Panel value="settings" pt="sm">
              <TriggerSettings
                key={`${w.triggerConfig.eventName}-${w.allowReentry}`}
                eventName={w.triggerConfig.eventName ?? ''}
                allowReentry={w.allowReentry}
                pending={patchWorkflow.isPending}
                onSave={(eventName, allowReentry) => patchWorkflow.mutate({ triggerConfig: { eventName }, allowReentry })}
              />
            </Tabs.Panel>
          </Tabs>
        </Grid.Col>
      </Grid>
      <Modal opened={!!adding} onClose={() => setAdding(undefined)} title="Add a step" centered size="lg">
        {adding && (
          <Stack>
            <Text size="sm">{'after' in adding ? `After ${adding.after.label}` : `Between ${adding.insertOn.label}`}</Text>
            {!addType && (
              <SimpleGrid cols={2}>
                {STEP_TYPES.filter((t) => !('insertOn' in adding) || t !== 'EXIT').map((t) => (
                  <Button key={t} variant="default" onClick={() => setAddType(t)}>
                    {STEP_LABELS[t]}
                  </Button>
                ))}
              </SimpleGrid>
            )}
            {addType && (
              <StepForm
                type={addType}
                config={{}}
                draftKey={`workflow:${workflowId}:new:${addType}`}
                submitLabel="Add step"
                eventName={workflow.data?.triggerConfig.eventName}
                pending={addStep.isPending}
                error={addStep.error}
                onCancel={() => setAddType(undefined)}
                onSubmit={(config) =>
                  addStep.mutate({
                    type: addType,
                    config,
                    ...('after' in adding ? { after: { stepId: adding.after.stepId, branch: adding.after.branch } } : { insertOn: adding.insertOn.transitionId }),
                  })
                }
              />
            )}
          </Stack>
        )}
      </Modal>
    </Stack>
  );
}

function TriggerSettings(props: { eventName: string; allowReentry: boolean; pending: boolean; onSave: (eventName: string, allowReentry: boolean) => void }) {
  const [eventName, setEventName] = useState(props.eventName);
  const [allowReentry, setAllowReentry] = useState(props.allowReentry);
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        props.onSave(eventName, allowReentry);
      }}
    >
      <Stack gap="sm">
        <TextInput label="Trigger event" value={eventName} onChange={(e) => setEventName(e.currentTarget.value)} required />
        <Switch label="Allow re-entry (a contact may enter again once its previous run ended)" checked={allowReentry} onChange={(e) => setAllowReentry(e.currentTarget.checked)} />
        <Button type="submit" loading={props.pending}>
          Save trigger
        </Button>
      </Stack>
    </form>
  );
}
