// Generic page frame (title, optional subtitle/actions) and an empty state, over Polaris Page/EmptyState.
import { Box, Card, EmptyState, Page } from '@shopify/polaris';
import type { ComponentProps, ReactNode } from 'react';
import { EMPTY_ILLUSTRATION } from './illustrations';

export interface PageFrameProps {
  title: string;
  subtitle?: string;
  primaryAction?: ComponentProps<typeof Page>['primaryAction'];
  secondaryActions?: ComponentProps<typeof Page>['secondaryActions'];
  backAction?: ComponentProps<typeof Page>['backAction'];
  fullWidth?: boolean;
  narrowWidth?: boolean;
  children?: ReactNode;
}

export function PageFrame({ children, ...props }: PageFrameProps) {
  return (
    <Page {...props}>
      <div className="ds-page-body">{children}</div>
    </Page>
  );
}

export interface EmptyStateCardProps {
  heading: string;
  children?: ReactNode;
  action?: { content: string; onAction?: () => void; url?: string; disabled?: boolean };
  secondaryAction?: { content: string; onAction?: () => void; url?: string };
  image?: string;
}

/** A card with an empty state: what the page will hold and, when there is one, the first step. */
export function EmptyStateCard({ heading, children, action, secondaryAction, image }: EmptyStateCardProps) {
  return (
    <Card>
      <Box paddingBlock="400">
        <EmptyState heading={heading} action={action} secondaryAction={secondaryAction} image={image ?? EMPTY_ILLUSTRATION}>
          {children}
        </EmptyState>
      </Box>
    </Card>
  );
}

/** A whole page that only holds an empty state. */
export function EmptyPage(props: EmptyStateCardProps & { title: string; subtitle?: string }) {
  const { title, subtitle, ...empty } = props;
  return (
    <PageFrame title={title} subtitle={subtitle}>
      <EmptyStateCard {...empty} />
    </PageFrame>
  );
}
