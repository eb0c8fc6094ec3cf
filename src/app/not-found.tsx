// The catch-all not-found page.
import { Text } from '@shopify/polaris';
import { useLocation } from 'wouter';
import { EmptyPage } from '../ui/page';

export const NOT_FOUND_TITLE = 'Page not found';

export function NotFoundPage() {
  const [, navigate] = useLocation();
  return (
    <EmptyPage title={NOT_FOUND_TITLE} heading="This page does not exist" action={{ content: 'Go to Translation', onAction: () => navigate('/') }}>
      <Text as="p">Check the address, or go back to your Teamspace.</Text>
    </EmptyPage>
  );
}
