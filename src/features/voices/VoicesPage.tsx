// /spaces/:spaceId/voices: the Voice Clone Library of a Teamspace.
import { Text } from '@shopify/polaris';
import { EmptyPage } from '../../ui/page';

export default function VoicesPage() {
  return (
    <EmptyPage
      title="Voice Clone Library"
      subtitle="Voices cloned from your videos, shared by everyone in this Teamspace."
      heading="No voice clones yet"
    >
      <Text as="p">
        Clone a speaker's voice from a project, tune its accent and expressiveness, and reuse it when you dub other videos.
      </Text>
    </EmptyPage>
  );
}
