// The generic error page ('Something went wrong' + Refresh page) and a React error boundary showing it.
import { Box, Button, Card, EmptyState, Page, Text } from '@shopify/polaris';
import { Component, type ErrorInfo, type ReactNode } from 'react';
import { TEXT } from '../../contract/errors';
import { page } from '../lib/page';
import { EMPTY_ILLUSTRATION } from './illustrations';

/** `detail`: the underlying error text, shown small under the generic text (e.g. 'request timeout'). */
export function GenericErrorPage({ detail }: { detail?: string | null }) {
  return (
    <Page narrowWidth>
      <Card>
        <Box paddingBlock="400">
          <EmptyState image={EMPTY_ILLUSTRATION}>
            <Box paddingBlockEnd="200">
              <Text as="h1" variant="headingLg">
                {TEXT.genericTitle}
              </Text>
            </Box>
            <Text as="p">{TEXT.genericPage}</Text>
            {detail ? (
              <Box paddingBlockStart="200">
                <Text as="p" tone="subdued" variant="bodySm">
                  {detail}
                </Text>
              </Box>
            ) : null}
            <Box paddingBlockStart="400">
              <Button variant="primary" onClick={() => page.reload()}>
                {TEXT.refreshPage}
              </Button>
            </Box>
          </EmptyState>
        </Box>
      </Card>
    </Page>
  );
}

interface BoundaryState {
  failed: boolean;
}

/** Catches render errors below it and shows the generic error page. */
export class ErrorBoundary extends Component<{ children: ReactNode; fallback?: ReactNode }, BoundaryState> {
  override state: BoundaryState = { failed: false };
  static getDerivedStateFromError(): BoundaryState {
    return { failed: true };
  }
  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error('render error', error, info.componentStack);
  }
  override render() {
    if (this.state.failed) return this.props.fallback ?? <GenericErrorPage />;
    return this.props.children;
  }
}
