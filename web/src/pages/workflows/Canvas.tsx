import '@xyflow/react/dist/style.css';
import dagre from '@dagrejs/dagre';
import { ActionIcon, Badge, Button, Group, Paper, Stack, Text } from '@mantine/core';
import {
  Background,
  BaseEdge,
  type Connection,
  Controls,
  type Edge,
  EdgeLabelRenderer,
  type EdgeProps,
  getSmoothStepPath,
  Handle,
  type Node,
  type NodeProps,
  Position,
  ReactFlow,
  ReactFlowProvider,
  useReactFlow,
} from '@xyflow/react';
import { useEffect, useMemo } from 'react';
import { filled, type Graph, outcomes, STEP_LABELS, type Step, summary } from './workflows.ts';

const NODE_W = 260;
const NODE_H = 160;

/** Where a step may get a new successor: a step and the branch of a free outcome. */
export type AddTarget = { after: { stepId: string; branch: string | null; label: string } } | { insertOn: { transitionId: string; label: string } };

export type Highlight = { steps: Set<string>; edges: Set<string>; tone: 'trace' | 'dry-run' };

type Actions = {
  readOnly: boolean;
  onAdd: (target: AddTarget) => void;
  onSelect: (stepId: string) => void;
  onDeleteEdge: (transitionId: string, label: string) => void;
  /** Delete pressed on a focused step: the page asks, then deletes it joining its neighbours. */
  onDeleteStep: (stepId: string, label: string) => void;
};

type StepData = {
  step: Step;
  title: string;
  summary: string;
  waiting: number;
  error?: string;
  selected: boolean;
  lit: 'trace' | 'dry-run' | undefined;
  free: Array<{ branch: string | null; label: string }>;
  actions: Actions;
};
type EdgeData = { label: string; describe: string; error?: string; lit: boolean; actions: Actions };

const LIT = { trace: 'var(--mantine-color-teal-8)', 'dry-run': 'var(--mantine-color-indigo-8)' } as const;

const stepTitle = (step: Step) => step.name || STEP_LABELS[step.type];

function StepNode({ data }: NodeProps<Node<StepData>>) {
  const { step, actions } = data;
  return (
    <Paper
      withBorder
      p="xs"
      radius="md"
      w={NODE_W}
      style={{
        borderWidth: data.lit || data.selected ? 3 : 1,
        borderColor: data.lit ? LIT[data.lit] : data.selected ? 'var(--mantine-color-blue-8)' : undefined,
        background: data.lit ? (data.lit === 'trace' ? 'var(--mantine-color-teal-0)' : 'var(--mantine-color-indigo-0)') : undefined,
      }}
    >
      {step.type !== 'TRIGGER' && <Handle type="target" position={Position.Top} />}
      <Stack gap={4}>
        <Group justify="space-between" wrap="nowrap" gap={4}>
          <Text size="xs" fw={700} tt="uppercase" c="gray.8">
            {STEP_LABELS[step.type]}
          </Text>
          {data.waiting > 0 && (
            <Badge size="sm" color="orange.9" aria-label={`${data.waiting} waiting here`}>
              {data.waiting} waiting
            </Badge>
          )}
        </Group>
        <Button
          variant="subtle"
          size="compact-sm"
          className="nodrag"
          justify="start"
          onClick={() => actions.onSelect(step.id)}
          onKeyDown={(e) => {
            if (e.key !== 'Delete' || actions.readOnly || step.type === 'TRIGGER') return;
            e.preventDefault();
            e.stopPropagation();
            actions.onDeleteStep(step.id, data.title);
          }}
          aria-keyshortcuts={step.type === 'TRIGGER' || actions.readOnly ? undefined : 'Delete'}
          aria-label={`Open step ${data.title}`}
          styles={{ label: { whiteSpace: 'normal', textAlign: 'left' } }}
        >
          {data.title}
        </Button>
        {data.summary && (
          <Text size="xs" c="gray.8" lineClamp={2}>
            {data.summary}
          </Text>
        )}
        {data.error && (
          <Text size="xs" c="red.9" role="alert">
            {data.error}
          </Text>
        )}
        {!actions.readOnly && data.free.length > 0 && (
          <Group gap={4}>
            {data.free.map((o) => (
              <Button
                key={o.label}
                size="compact-xs"
                variant="default"
                className="nodrag"
                onClick={() => actions.onAdd({ after: { stepId: step.id, branch: o.branch, label: `${data.title}${o.branch ? ` (${o.label})` : ''}` } })}
                aria-label={`Add a step after ${data.title}${o.branch ? ` on ${o.label}` : ''}`}
              >
                + {o.branch ? o.label : 'step'}
              </Button>
            ))}
          </Group>
        )}
      </Stack>
      {step.type !== 'EXIT' && <Handle type="source" position={Position.Bottom} />}
    </Paper>
  );
}

function StepEdge({ id, sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition, data, markerEnd }: EdgeProps<Edge<EdgeData>>) {
  const [path, labelX, labelY] = getSmoothStepPath({ sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition });
  const d = data!;
  return (
    <>
      <BaseEdge id={id} path={path} markerEnd={markerEnd} style={{ stroke: d.lit ? 'var(--mantine-color-teal-8)' : 'var(--mantine-color-gray-6)', strokeWidth: d.lit ? 3 : 1.5 }} />
      <EdgeLabelRenderer>
        <div className="nodrag nopan" style={{ position: 'absolute', transform: `translate(-50%, -50%) translate(${labelX}px, ${labelY}px)`, pointerEvents: 'all' }}>
          <Group gap={2} wrap="nowrap" bg="white" px={4} style={{ borderRadius: 4 }}>
            {d.label && (
              <Text size="xs" fw={700} c="gray.9">
                {d.label}
              </Text>
            )}
            {!d.actions.readOnly && (
              <>
                <ActionIcon
                  size="sm"
                  variant="default"
                  onClick={() => d.actions.onAdd({ insertOn: { transitionId: id, label: d.describe } })}
                  aria-label={`Insert a step between ${d.describe}`}
                >
                  +
                </ActionIcon>
                <ActionIcon size="sm" variant="default" c="red.9" onClick={() => d.actions.onDeleteEdge(id, d.describe)} aria-label={`Delete the connection ${d.describe}`}>
                  ×
                </ActionIcon>
              </>
            )}
          </Group>
          {d.error && (
            <Text size="xs" c="red.9" bg="white" role="alert">
              {d.error}
            </Text>
          )}
        </div>
      </EdgeLabelRenderer>
    </>
  );
}

/** Fits the whole graph in view again whenever its shape changes (a step added, an edge moved). */
function FitOnChange({ shape }: { shape: string }) {
  const flow = useReactFlow();
  // biome-ignore lint/correctness/useExhaustiveDependencies: `shape` is the trigger, not a value the effect reads
  useEffect(() => {
    const timer = setTimeout(() => void flow.fitView({ padding: 0.1 }), 60);
    return () => clearTimeout(timer);
  }, [shape, flow]);
  return null;
}

const nodeTypes = { step: StepNode };
const edgeTypes = { step: StepEdge };

/** Top-to-bottom positions from dagre, the TRIGGER on top. */
function layout(graph: Graph): Map<string, { x: number; y: number }> {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'TB', nodesep: 50, ranksep: 70 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const step of graph.steps) g.setNode(step.id, { width: NODE_W, height: NODE_H });
  for (const t of graph.transitions) g.setEdge(t.fromStepId, t.toStepId);
  dagre.layout(g);
  return new Map(
    graph.steps.map((s) => {
      const n = g.node(s.id);
      return [s.id, { x: n.x - NODE_W / 2, y: n.y - NODE_H / 2 }];
    }),
  );
}

/**
 * The workflow canvas (@xyflow/react, laid out by dagre): the TRIGGER and each step as a node with
 * its summary, waiting contacts and the server's refusal; edges labelled with their branch, each
 * with buttons to insert a step on it or delete it. Every action is a button, so the keyboard
 * reaches all of them; nodes are also connected by dragging from a handle.
 */
export function Canvas(props: {
  graph: Graph;
  readOnly: boolean;
  templates: Map<string, string>;
  waiting: Map<string, number>;
  stepErrors: Map<string, string>;
  edgeErrors: Map<string, string>;
  selected: string | undefined;
  highlight: Highlight | undefined;
  onAdd: (target: AddTarget) => void;
  onSelect: (stepId: string) => void;
  onDeleteEdge: (transitionId: string, label: string) => void;
  onDeleteStep: (stepId: string, label: string) => void;
  onConnect: (fromStepId: string, toStepId: string) => void;
  label: string;
}) {
  const { graph, readOnly, templates, waiting, stepErrors, edgeErrors, selected, highlight } = props;
  const actions: Actions = { readOnly, onAdd: props.onAdd, onSelect: props.onSelect, onDeleteEdge: props.onDeleteEdge, onDeleteStep: props.onDeleteStep };
  const positions = useMemo(() => layout(graph), [graph]);
  const byId = new Map(graph.steps.map((s) => [s.id, s]));
  const nodes: Node<StepData>[] = graph.steps.map((step) => {
    const used = new Set(graph.transitions.filter((t) => t.fromStepId === step.id).map((t) => filled(step, t)));
    return {
      id: step.id,
      type: 'step',
      position: positions.get(step.id) ?? { x: 0, y: 0 },
      ariaLabel: `${STEP_LABELS[step.type]} step ${stepTitle(step)}`,
      data: {
        step,
        title: stepTitle(step),
        summary: summary(step, templates),
        waiting: waiting.get(step.id) ?? 0,
        error: stepErrors.get(step.id),
        selected: selected === step.id,
        lit: highlight?.steps.has(step.id) ? highlight.tone : undefined,
        free: outcomes(step).filter((o) => !used.has(o.branch)),
        actions,
      },
    };
  });
  const edges: Edge<EdgeData>[] = graph.transitions.map((t) => {
    const from = byId.get(t.fromStepId);
    const to = byId.get(t.toStepId);
    const describe = `${from ? stepTitle(from) : '?'} and ${to ? stepTitle(to) : '?'}${t.branch ? ` (${t.branch})` : ''}`;
    return {
      id: t.id,
      source: t.fromStepId,
      target: t.toStepId,
      type: 'step',
      ariaLabel: `Connection from ${describe}`,
      data: { label: t.branch ?? '', describe, error: edgeErrors.get(t.id), lit: !!highlight?.edges.has(`${t.fromStepId}>${t.toStepId}`), actions },
    };
  });
  return (
    <section style={{ height: 640, border: '1px solid var(--mantine-color-gray-4)', borderRadius: 8 }} aria-label={props.label}>
      <ReactFlowProvider>
        <ReactFlow
          nodes={nodes}
          edges={edges}
          nodeTypes={nodeTypes}
          edgeTypes={edgeTypes}
          fitView
          nodesDraggable={false}
          nodesConnectable={!readOnly}
          elementsSelectable={false}
          onConnect={(c: Connection) => c.source && c.target && props.onConnect(c.source, c.target)}
          // A click handler keeps nodes taking pointer events (their buttons), and opens the step.
          onNodeClick={(_, node) => props.onSelect(node.id)}
          minZoom={0.3}
        >
          <FitOnChange shape={graph.steps.map((step) => step.id).join() + graph.transitions.map((t) => t.id).join()} />
          <Background />
          <Controls showInteractive={false} />
        </ReactFlow>
      </ReactFlowProvider>
    </section>
  );
}
