/** The template or campaign type (the API reference); HEADLESS is never tracked. */
export type ContentType = 'TRANSACTIONAL' | 'MARKETING' | 'HEADLESS';

/**
 * A project's tracking setting (docs/decisions/sending.md): opens and clicks are each tracked on `all` mail, on
 * `marketing` mail only, or `off`. HEADLESS mail is never tracked, whatever the setting.
 */
export const TRACKING_MODES = ['all', 'marketing', 'off'] as const;
export type TrackingMode = (typeof TRACKING_MODES)[number];
export type TrackingSettings = { opens: TrackingMode; clicks: TrackingMode };

/**
 * The defaults: a pixel in a password reset helps no one and adds spam score (SpamAssassin's
 * HTML_IMAGE_ONLY rules fire on short mail with an image), while click tracking on transactional
 * links (a receipt's "view order") is what most senders want counted.
 */
export const DEFAULT_TRACKING: TrackingSettings = Object.freeze({ opens: 'marketing', clicks: 'all' });

/** Whether `mode` tracks mail of `type`. */
export function tracks(mode: TrackingMode, type: ContentType): boolean {
  if (type === 'HEADLESS') return false;
  return mode === 'all' || (mode === 'marketing' && type === 'MARKETING');
}
