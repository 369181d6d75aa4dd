import type { Scenario } from '../scenario.ts';
import { analyticsTimeseries } from './analytics-timeseries.ts';
import { authRejected } from './auth-rejected.ts';
import { authWhoami } from './auth-whoami.ts';
import { campaignMjmlVsHtml } from './campaign-mjml-vs-html.ts';
import { campaignSend, campaignSendMjml } from './campaign-send.ts';
import { contactsImport } from './contacts-import.ts';
import { contactsDeepPage, contactsFirstPage } from './contacts-list.ts';
import { contactsScale } from './contacts-scale.ts';
import { helloWorld } from './hello-world.ts';
import { segmentCount } from './segment-count.ts';
import { deliveryRate, nodemailerAlone, sendAccepted, sendAcceptedApiRole, sendAcceptedSplit } from './send.ts';
import { smtpSubmission } from './smtp-submission.ts';
import { streamDrain } from './stream-drain.ts';
import { trackExisting, trackNew } from './track.ts';
import { webhookDelivery } from './webhooks.ts';
import { workflowRun } from './workflow-run.ts';

/** Every scenario `npm run bench` runs, in order. Add one line per new scenario. */
export const SCENARIOS: Scenario[] = [
  helloWorld,
  authWhoami,
  authRejected,
  trackNew,
  trackExisting,
  contactsImport,
  contactsFirstPage,
  contactsDeepPage,
  segmentCount,
  contactsScale,
  sendAccepted,
  sendAcceptedApiRole,
  sendAcceptedSplit,
  smtpSubmission,
  nodemailerAlone,
  deliveryRate,
  campaignSend,
  campaignSendMjml,
  streamDrain,
  campaignMjmlVsHtml,
  workflowRun,
  webhookDelivery,
  analyticsTimeseries,
];
