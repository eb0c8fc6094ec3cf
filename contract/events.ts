// The live project event: what the server's event bus publishes on every status change and progress step, and
// what the browser receives over server-sent events (GET /api/project/events and the editor's stream).
import type { ProjectStatus } from './statuses';

export interface ProjectEvent {
  id: string;
  space_id: string;
  status: ProjectStatus;
  /** 0..100 within the status shown */
  progress: number;
}
