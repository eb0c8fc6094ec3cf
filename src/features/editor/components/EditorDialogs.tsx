// The editor's dialogs: leaving with unsaved changes, confirming a Generate (the minutes it spends), feedback on
// the dub, and copying the project to another language.
import { Modal, Text } from '@shopify/polaris';
import { useMemo } from 'react';
import { useLocation } from 'wouter';
import type { Project } from '../../../../contract/schemas/project';
import { useSettings } from '../../../lib/api/use-settings';
import { formatMinutes, languagePickerLabel } from '../../../lib/format';
import { DiscardChangesModal } from '../../../ui/discard-modal';
import { FeedbackModal } from '../../../ui/feedback-modal';
import { useToast } from '../../../ui/toasts';
import { copyProject, sendFeedback } from '../api';
import type { LeaveGuard } from '../useLeaveGuard';
import { CopyModal } from './CopyModal';

export function EditorDialogs(p: {
  project: Project;
  spaceId: string;
  guard: LeaveGuard;
  confirmGenerate: boolean;
  onCloseGenerate: () => void;
  onGenerate: () => void;
  /** Minutes a Generate spends, and the minutes left (null: not known). */
  cost: number;
  minutesLeft: number | null;
  feedbackOpen: boolean;
  onCloseFeedback: () => void;
  copyOpen: boolean;
  onCloseCopy: () => void;
}) {
  const { project, spaceId, guard, cost, minutesLeft } = p;
  const pid = project.id;
  const toast = useToast();
  const [, navigate] = useLocation();
  const { settings } = useSettings();
  const dstOptions = useMemo(
    () => [...(settings?.languages.translation ?? [])].sort((a, b) => a.id - b.id).map((l) => ({ label: languagePickerLabel(l.value, l.label), value: l.value, ...(l.variant_note ? { note: l.variant_note } : {}) })),
    [settings],
  );
  return (
    <>
      <DiscardChangesModal open={guard.open} onCancel={guard.onCancel} onDiscard={guard.onDiscard} onSave={guard.onSaveAndLeave} />
      <Modal
        open={p.confirmGenerate}
        onClose={p.onCloseGenerate}
        title="Generate the dubbed video?"
        primaryAction={{ content: 'Generate', onAction: () => { p.onCloseGenerate(); p.onGenerate(); } }}
        secondaryActions={[{ content: 'Cancel', onAction: p.onCloseGenerate }]}
      >
        <Modal.Section>
          <Text as="p">
            {cost > 0
              ? `This uses ${formatMinutes(cost)}${minutesLeft !== null ? ` of your ${formatMinutes(minutesLeft)}` : ''}.`
              : 'This uses no minutes.'}
          </Text>
        </Modal.Section>
      </Modal>
      <FeedbackModal open={p.feedbackOpen} onClose={p.onCloseFeedback} onSubmit={async (v) => {
        await sendFeedback(pid, v);
        toast.show('Thank you for the feedback');
      }} />
      <CopyModal
        open={p.copyOpen}
        options={dstOptions}
        currentLang={project.dst_lang}
        onClose={p.onCloseCopy}
        onCopy={async (lang) => {
          const copy = await copyProject(pid, lang);
          navigate(`/spaces/${spaceId}/project/${copy.id}`);
          return copy;
        }}
      />
    </>
  );
}
