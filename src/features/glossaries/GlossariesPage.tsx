// /spaces/:spaceId/glossaries: the Dictionary of a Teamspace (glossaries per source and target language).
import { Text } from '@shopify/polaris';
import { EmptyPage } from '../../ui/page';

export default function GlossariesPage() {
  return (
    <EmptyPage
      title="Dictionary"
      subtitle="Terms that must be translated your way in every project of this Teamspace."
      heading="No dictionaries yet"
    >
      <Text as="p">
        A dictionary pairs a source and a target language with the terms to keep or translate in a fixed way. Projects that use it
        follow it when the script is translated.
      </Text>
    </EmptyPage>
  );
}
