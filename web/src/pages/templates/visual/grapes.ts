import grapesjs, { type Editor } from 'grapesjs';
import mjml from 'grapesjs-mjml';
import 'grapesjs/dist/css/grapes.min.css';

// grapesjs-mjml ships a UMD bundle: its plugin is the CommonJS export's `default`.
const mjmlPlugin = (mjml as unknown as { default?: typeof mjml }).default ?? mjml;

/** The blocks the palette offers, in its order, with the names a user reads (docs/templates.md). */
const BLOCKS: Record<string, string> = {
  'mj-1-column': 'Section',
  'mj-2-columns': 'Two columns',
  'mj-3-columns': 'Three columns',
  'mj-text': 'Text',
  'mj-image': 'Image',
  'mj-button': 'Button',
  'mj-divider': 'Divider',
  'mj-spacer': 'Spacer',
  'mj-social-group': 'Social links',
};

/** A light grey box: what an image block shows until an image is chosen (img-src allows data:). */
const IMAGE_PLACEHOLDER = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" width="600" height="240"><rect width="600" height="240" fill="#e9ecef"/><text x="300" y="128" font-family="sans-serif" font-size="20" fill="#868e96" text-anchor="middle">Double-click to choose an image</text></svg>',
)}`;

/** The footer every marketing email needs: the unsubscribe and preference links (docs/templates.md). */
const FOOTER = `<mj-section padding="16px 0px 32px">
  <mj-column>
    <mj-text align="center" font-size="12px" line-height="1.5" color="#6b7280">You receive this because you subscribed to our news.<br /><a href="{{ manageUrl }}" style="color:#6b7280">Email preferences</a> · <a href="{{ unsubscribeUrl }}" style="color:#6b7280">Unsubscribe</a></mj-text>
  </mj-column>
</mj-section>`;

const FOOTER_ICON = '<svg viewBox="0 0 24 24"><path fill="currentColor" d="M2 15h20v5H2v-5Zm1 1v3h18v-3H3Zm2 1h8v1H5v-1Zm10 0h4v1h-4v-1ZM2 4h20v9H2V4Zm1 1v7h18V5H3Z"/></svg>';

// GrapesJS turns its file input off when it has no upload URL, even with an `uploadFile` of our
// own; `disableUpload` (read at run time, missing from its types) turns it back on.
const UPLOADS_ON = { disableUpload: false };

export type Parts = { canvas: HTMLElement; blocks: HTMLElement; traits: HTMLElement; styles: HTMLElement };
export type Content = { source: string; editorState: object | null };

/**
 * GrapesJS with grapesjs-mjml over the given elements: blocks, settings and styles in the
 * dashboard's own panels (no GrapesJS panels), no storage of its own (the template is saved by the
 * page), images uploaded by `upload`. Opens `content`: its editor state when there is one, else its MJML.
 */
export function createEditor(parts: Parts, content: Content, upload: (file: File) => Promise<string>): Editor {
  const editor = grapesjs.init({
    container: parts.canvas,
    height: '100%',
    width: 'auto',
    storageManager: false,
    // No calls to grapesjs.com and no icon font from a CDN (the dashboard's CSP allows neither).
    telemetry: false,
    cssIcons: '',
    i18n: {
      messages: { en: { assetManager: { modalTitle: 'Choose an image', uploadTitle: 'Drop an image here or click to choose one (PNG, JPEG, GIF or WebP, at most 5 MB)' } } },
    },
    panels: { defaults: [] },
    // The head (preview text, default attributes, styles) is kept and exported, not drawn.
    canvasCss: 'mj-head { display: none !important; }',
    blockManager: { appendTo: parts.blocks },
    // These two merge their options deeply, which loses an element: they are given a selector.
    traitManager: { appendTo: selectorOf(parts.traits) },
    styleManager: { appendTo: selectorOf(parts.styles) },
    assetManager: {
      embedAsBase64: false,
      multiUpload: false,
      ...UPLOADS_ON,
      uploadFile: (event) => uploadInto(editor, event, upload),
    },
    plugins: [
      (instance) =>
        mjmlPlugin(instance, {
          blocks: Object.keys(BLOCKS),
          block: (id: string) => ({ label: BLOCKS[id], category: '' }),
          imagePlaceholderSrc: IMAGE_PLACEHOLDER,
          useCustomTheme: false,
        }),
    ],
  });
  editor.on('load', () => editor.Canvas.getFrameEl()?.setAttribute('title', 'The email being designed'));
  editor.Blocks.add('mr-footer', { label: 'Footer with unsubscribe', media: FOOTER_ICON, content: FOOTER });
  if (content.editorState) editor.loadProjectData(content.editorState);
  else editor.setComponents(withClosingTags(content.source));
  // Opening is not a change the author can undo.
  editor.UndoManager.clear();
  return editor;
}

function selectorOf(element: HTMLElement): string {
  if (!element.id) throw new Error('the settings panels need an id');
  return `#${CSS.escape(element.id)}`;
}

/** Uploads the chosen or dropped file, adds it to the asset list and puts it into the image being edited. */
async function uploadInto(editor: Editor, event: DragEvent, upload: (file: File) => Promise<string>): Promise<void> {
  const input = event.target as HTMLInputElement | null;
  const file = event.dataTransfer?.files[0] ?? input?.files?.[0];
  if (!file) return;
  const assets = editor.Assets;
  try {
    const url = await upload(file);
    const [asset] = [assets.add({ type: 'image', src: url, name: file.name })].flat();
    // The image that opened the picker takes the upload at once, as a click on it in the list would.
    const behaviour = assets.__getBehaviour() as { select?: (asset: unknown, complete: boolean) => void };
    behaviour.select?.(asset, true);
  } catch {
    // `upload` has said why, beside the editor.
  } finally {
    if (input) input.value = '';
  }
}

/**
 * MJML with every self-closing element written as an open and a close tag: GrapesJS reads markup as
 * HTML, where `<mj-all />` would open an element that swallows the ones after it.
 */
export const withClosingTags = (mjml: string) => mjml.replace(/<(mj-[a-z-]+)((?:\s+[^\s=>/]+(?:="[^"]*"|='[^']*')?)*)\s*\/>/g, '<$1$2></$1>');

/**
 * The editor's MJML and its state. With `finish`, a text being edited is written back first (its
 * cursor is lost: only when the author saves or leaves the editor); without, it counts as it was
 * when its editing began. GrapesJS escapes quotes and angle brackets in text, which would break
 * Liquid: inside `{{ }}` and `{% %}` they are written back as the author meant them.
 */
export async function contentOf(editor: Editor, { finish = false } = {}): Promise<Content> {
  const editing = editor.getEditing();
  if (finish && editing?.view && 'syncContent' in editing.view) await (editing.view as { syncContent: () => Promise<void> }).syncContent();
  return { source: onLines(liquidAsWritten(editor.getHtml())), editorState: editor.getProjectData() };
}

/**
 * One MJML element a line (GrapesJS writes all on one): the server's errors name a line, and the
 * MJML reads well when the template becomes MJML. Whitespace between MJML elements is not content.
 */
export const onLines = (mjml: string) => mjml.replace(/>(?=<mj-)/g, '>\n').replace(/(<\/mj-[a-z-]+>)(?=<\/mj-)/g, '$1\n');

const ENTITIES: Record<string, string> = { '&quot;': '"', '&#34;': '"', '&#039;': "'", '&#39;': "'", '&lt;': '<', '&gt;': '>', '&amp;': '&' };

export function liquidAsWritten(markup: string): string {
  return markup.replace(/\{\{[\s\S]*?\}\}|\{%[\s\S]*?%\}/g, (tag) => tag.replace(/&(quot|#34|#039|#39|lt|gt|amp);/g, (entity) => ENTITIES[entity] ?? entity));
}

/**
 * Puts `text` at the cursor of the text or button being edited; with none being edited, at the
 * end of the selected text or button. Answers false when neither is there.
 */
export function insertAtCursor(editor: Editor, text: string): boolean {
  const rte = editor.RichTextEditor.globalRte;
  if (editor.getEditing() && rte) {
    rte.insertHTML(escapeText(text), { select: false });
    return true;
  }
  const selected = editor.getSelected();
  if (!selected || !(selected.is('text') || selected.is('mj-text') || selected.is('mj-button'))) return false;
  selected.components().add({ type: 'textnode', content: ` ${text}` });
  return true;
}

const escapeText = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
