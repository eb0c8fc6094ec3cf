// Upgrade modals per feature (spec sections 2 and 6): opened by a 403 feature refusal from the server and by
// visible-but-locked items. Inside a Teamspace someone else owns, the upgrade button is disabled (the owner's plan
// applies there), except for Teamspace content. A feature without content logs an error and shows nothing.
import { Banner, BlockStack, List, Modal, Text } from '@shopify/polaris';
import { useAtom, useAtomValue } from 'jotai';
import { useLocation } from 'wouter';
import { FEATURE_LABELS, FEATURE_MIN_PLAN, PLAN_DISPLAY_NAMES, type FeatureKey } from '../../../contract/features';
import { useCurrentUser } from '../../lib/api/use-current-user';
import { useSpaces as useSpaceList } from '../../lib/api/use-spaces';
import { currentSpaceIdAtom, upgradeModalAtom } from '../../lib/state';
import { currentAppPath } from '../../lib/page';

interface UpgradeContent {
  title: string;
  text: string;
  points: string[];
}

/** What each gated feature's modal says. */
export const UPGRADE_CONTENT: Partial<Record<FeatureKey, UpgradeContent>> = {
  lipsync: { title: 'Lip-sync your dub', text: 'Match the speakers’ lips to the translated voice.', points: ['Lip-sync on every dubbed video', 'Free lip-sync minutes included with some plans'] },
  srt_upload: { title: 'Bring your own subtitles', text: 'Upload a source or translated SRT instead of transcribing.', points: ['Source SRT replaces speech recognition', 'Target SRT replaces machine translation'] },
  srt_download: { title: 'Download subtitles', text: 'Download the translation as SRT or VTT subtitles.', points: ['SRT and VTT files', 'Timed to the dubbed video'] },
  subtitles: { title: 'Captions and burned subtitles', text: 'Burn the translated captions into your video.', points: ['Captions burned into the video', 'Also on lip-synced videos'] },
  voice_presets: { title: 'Voice Clone Library', text: 'Clone voices and reuse them across projects.', points: ['Up to 10 custom voice clones', 'Adjust accent and expressiveness'] },
  instant_voice_preset: { title: 'Instant voice clones', text: 'Clone a speaker’s voice from the video itself.', points: ['One click from the speakers panel'] },
  ai_rewrite: { title: 'AI rewrite', text: 'Shorten or rewrite the script so it fits the timing.', points: ['Rewrite and summarise segments'] },
  glossary: { title: 'The Dictionary', text: 'Keep names and terms translated your way in every project.', points: ['Per language pair', 'Applied to every translation'] },
  multilanguage: { title: 'Several languages at once', text: 'Translate one video into several languages in one go.', points: ['One project per language, created together'] },
  api: { title: 'The API', text: 'Automate dubbing with API credentials and webhooks.', points: ['API credentials', 'Everything the app does, over HTTP'] },
  spaces: { title: 'Teamspaces', text: 'Work together with your team in shared Teamspaces.', points: ['Invite members', 'Share projects, voices and dictionaries'] },
};

export function UpgradeModal() {
  const [request, setRequest] = useAtom(upgradeModalAtom);
  const spaceId = useAtomValue(currentSpaceIdAtom);
  const { data: spaces } = useSpaceList(request !== null);
  const { data: user } = useCurrentUser(request !== null);
  const [, navigate] = useLocation();
  if (!request) return null;
  const content = UPGRADE_CONTENT[request.feature];
  if (!content) {
    console.error(`Upgrade modal without content for feature ${request.feature}`);
    return null;
  }
  const space = spaces?.find((s) => s.id === spaceId);
  const notOwner = !request.teamspaceContent && !!space && !!user && space.owner_id !== user.id && !user.is_superuser;
  const plan = PLAN_DISPLAY_NAMES[FEATURE_MIN_PLAN[request.feature]];
  const close = () => setRequest(null);
  const upgrade = () => {
    const from = currentAppPath();
    close();
    navigate(`/pricing${request.feature === 'lipsync' ? '?tab=lip_sync' : ''}`, { state: { from } });
  };
  return (
    <Modal
      open
      onClose={close}
      title={content.title}
      primaryAction={{ content: `Upgrade to ${plan}`, onAction: upgrade, disabled: notOwner }}
      secondaryActions={[{ content: 'Not now', onAction: close }]}
    >
      <Modal.Section>
        <BlockStack gap="300">
          <Text as="p">{content.text}</Text>
          <Text as="p" fontWeight="semibold">
            {`${FEATURE_LABELS[request.feature]} comes with the ${plan} plan and above.`}
          </Text>
          <List type="bullet">
            {content.points.map((p) => (
              <List.Item key={p}>{p}</List.Item>
            ))}
          </List>
          {notOwner ? <Banner tone="info">Only the owner of this Teamspace can upgrade its plan. Ask them to upgrade.</Banner> : null}
        </BlockStack>
      </Modal.Section>
    </Modal>
  );
}
