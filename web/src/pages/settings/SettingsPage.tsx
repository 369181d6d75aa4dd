import { Stack } from '@mantine/core';
import { PageHeader } from '../../ui/PageHeader.tsx';
import { AuditLogSection } from './AuditLogSection.tsx';
import { BillingSection } from './BillingSection.tsx';
import { DangerZone } from './DangerZone.tsx';
import { GeneralSection } from './GeneralSection.tsx';
import { MembersSection } from './MembersSection.tsx';
import { SecuritySection } from './SecuritySection.tsx';
import { TrackingSection } from './TrackingSection.tsx';
import { TwoFactorRequirementSection } from './TwoFactorRequirementSection.tsx';

export function Component() {
  return (
    <Stack maw={1000}>
      <PageHeader title="Settings" description="The project's name, who works on it, what it may send and track, how receivers see it, and what changed." />
      <GeneralSection />
      <MembersSection />
      <TrackingSection />
      <BillingSection />
      <TwoFactorRequirementSection />
      <SecuritySection />
      <AuditLogSection />
      <DangerZone />
    </Stack>
  );
}
