// The OpenAPI 3.1 document of /api, generated from the contract's valibot schemas (never written twice): every
// route the routers register (server/http/routes.ts MOUNTS) is listed; the operations below name their request
// and response schemas, examples and statuses. Built at build time (scripts/openapi.ts -> dist/openapi.json) and
// served at /api/openapi.json; /api/docs renders it with a locally bundled Swagger UI.
import { toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import * as apiS from '../../contract/schemas/api';
import * as auth from '../../contract/schemas/auth';
import * as batch from '../../contract/schemas/batch';
import * as glossary from '../../contract/schemas/glossary';
import * as onboarding from '../../contract/schemas/onboarding';
import * as payments from '../../contract/schemas/payments';
import * as shopBilling from '../../contract/schemas/shop-billing';
import * as quality from '../../contract/schemas/quality';
import { ErrorBody, ErrorDetailItem } from '../../contract/schemas/common';
import * as project from '../../contract/schemas/project';
import * as settings from '../../contract/schemas/settings';
import * as space from '../../contract/schemas/space';
import * as tools from '../../contract/schemas/tools';
import * as user from '../../contract/schemas/user';
import * as voice from '../../contract/schemas/voice-preset';
import * as cast from '../../contract/schemas/cast';
import * as shop from '../../contract/schemas/shop';
import * as shopPublish from '../../contract/schemas/shop-publish';

/** Named schemas of the document (components.schemas), each from the contract. */
const SCHEMAS = {
  Project: project.Project, ProjectPage: project.ProjectPage, CreateTranscriptRequest: project.CreateTranscriptRequest,
  UpdateProjectRequest: project.UpdateProjectRequest, CopyProjectRequest: project.CopyProjectRequest,
  MediaDownloadRequest: project.MediaDownloadRequest, RunLipsyncRequest: project.RunLipsyncRequest, FeedbackRequest: project.FeedbackRequest,
  PromptRequest: project.PromptRequest, AsrWordsRequest: project.AsrWordsRequest, AsrWordsResponse: project.AsrWordsResponse, TranscriptResponse: project.TranscriptResponse, TranscriptAddRequest: project.TranscriptAddRequest,
  TranscriptPatchRequest: project.TranscriptPatchRequest, TranscriptMergeRequest: project.TranscriptMergeRequest, Segment: project.Segment,
  KeepOriginalRequest: project.KeepOriginalRequest, SegmentTimingResponse: project.SegmentTimingResponse,
  VoicePool: project.VoicePool,
  CastMember: cast.CastMember, CastList: cast.CastList, AddCastMemberRequest: cast.AddCastMemberRequest, UpdateCastMemberRequest: cast.UpdateCastMemberRequest,
  MergeCastMemberRequest: cast.MergeCastMemberRequest, CastRecognitionList: cast.CastRecognitionList, CastUndoRequest: cast.CastUndoRequest,
  User: user.User, CreateUserRequest: user.CreateUserRequest, UpdateUserRequest: user.UpdateUserRequest,
  Space: space.Space, CreateSpaceRequest: space.CreateSpaceRequest, UpdateSpaceRequest: space.UpdateSpaceRequest,
  InviteRequest: space.InviteRequest, InviteLinkRequest: space.InviteLinkRequest, InviteLink: space.InviteLink,
  JoinRequest: space.JoinRequest, JoinAnswer: space.JoinAnswer, Credits: space.Credits, SpaceLimits: space.SpaceLimits,
  Settings: settings.Settings,
  SignUpRequest: auth.SignUpRequest, SignInRequest: auth.SignInRequest, RefreshRequest: auth.RefreshRequest, TokenResponse: auth.TokenResponse,
  SummarizeRequest: tools.SummarizeRequest, SummarizeResponse: tools.SummarizeResponse,
  SegmentShortenRequest: tools.SegmentShortenRequest, SegmentShortenResponse: tools.SegmentShortenResponse,
  ApiCredential: apiS.ApiCredential, ApiCredentialList: apiS.ApiCredentialList, CreateApiCredentialRequest: apiS.CreateApiCredentialRequest,
  CreatedApiCredential: apiS.CreatedApiCredential, WebhookEndpoint: apiS.WebhookEndpoint, WebhookEndpointWithSecret: apiS.WebhookEndpointWithSecret,
  WebhookList: apiS.WebhookList, CreateWebhookRequest: apiS.CreateWebhookRequest, UpdateWebhookRequest: apiS.UpdateWebhookRequest,
  WebhookDeliveryList: apiS.WebhookDeliveryList,
  DemoRequest: onboarding.DemoRequest, DemoCovers: onboarding.DemoCovers,
  EmailChangeRequest: onboarding.EmailChangeRequest, EmailChangeConfirmRequest: onboarding.EmailChangeConfirmRequest, EmailChange: onboarding.EmailChange,
  AdminUpdateUserRequest: user.AdminUpdateUserRequest, AdminUser: user.AdminUser,
  DefaultSpace: space.DefaultSpaceAnswer,
  VoicePreset: voice.VoicePreset, VoicePresetList: voice.VoicePresetList, CreateVoicePresetRequest: voice.CreateVoicePresetRequest,
  VoicePresetFromProjectRequest: voice.VoicePresetFromProjectRequest, UpdateVoicePresetRequest: voice.UpdateVoicePresetRequest,
  VoicePresetSettingsRequest: voice.VoicePresetSettingsRequest, VoicePresetStatuses: voice.VoicePresetStatuses, VoiceTutorialFlags: voice.VoiceTutorialFlags,
  CreateBatchRequest: batch.CreateBatchRequest, Batch: batch.Batch, BatchList: batch.BatchList,
  ShopProductsAnswer: shop.ShopProductsAnswer, ShopImportRequest: shop.ShopImportRequest, ShopImportAnswer: shop.ShopImportAnswer,
  PublishRequest: shopPublish.PublishRequest, Publication: shopPublish.Publication, PublicationList: shopPublish.PublicationList, ShopProductList: shopPublish.ShopProductList,
  MediaDownloadResponse: project.MediaDownloadResponse, VideoInfo: project.VideoInfo, DeliverableLanguages: project.DeliverableLanguages,
  DeliverableAnswer: project.DeliverableAnswer, QualityReport: quality.QualityReport,
  SegmentRewriteRequest: tools.SegmentRewriteRequest, SegmentRewriteResponse: tools.SegmentRewriteResponse,
  SignOutRequest: auth.SignOutRequest, OidcConfig: auth.OidcConfigResponse, SisterSsoAnswer: user.SisterSsoAnswer,
  CreateGlossaryRequest: glossary.CreateGlossaryRequest, UpdateGlossaryRequest: glossary.UpdateGlossaryRequest, Glossary: glossary.Glossary,
  ProductsResponse: payments.ProductsResponse, CheckoutResponse: payments.CheckoutResponse, PaymentCheckoutRequest: payments.PaymentCheckoutBody,
  BillingPortalResponse: payments.BillingPortalResponse, PromotionCodeRequest: payments.PromotionCodeRequest, PromotionCode: payments.PromotionCode,
  ChangePlanRequest: payments.ChangePlanRequest, SubscriptionAnswer: user.SubscriptionAnswer,
  AdminMinutesGrantRequest: payments.AdminMinutesGrant, AdminMinutesGrantResult: payments.AdminMinutesGrantResult,
  AdminPaymentsSettingsRequest: payments.AdminPaymentsSettings, AdminPaymentsAnswer: payments.AdminPaymentsAnswer,
  AdminSettingsRequest: settings.AdminSettingsUpdate,
  ShopBillingStatus: shopBilling.ShopBillingStatus, ShopSubscribeRequest: shopBilling.ShopSubscribeRequest, ShopSubscribeResponse: shopBilling.ShopSubscribeResponse,
  ShopMinutesRequest: shopBilling.ShopMinutesRequest, ShopMinutesResponse: shopBilling.ShopMinutesResponse,
  SupportMessageRequest: onboarding.SupportMessageRequest, SupportConversation: onboarding.SupportConversation,
  SupportReplyRequest: onboarding.SupportReplyRequest, SupportReplyAnswer: onboarding.SupportReplyAnswer,
  SurveyAddRequest: onboarding.SurveyAddRequest, SurveyRejectRequest: onboarding.SurveyRejectRequest, SurveyActiveRequest: onboarding.SurveyActiveRequest,
  Error: ErrorBody, ValidationIssue: ErrorDetailItem,
} satisfies Record<string, v.GenericSchema>;
type SchemaName = keyof typeof SCHEMAS;

interface Op {
  summary: string;
  body?: SchemaName;
  /** The body may be left out. */
  bodyOptional?: true;
  response?: SchemaName;
  /** The answer is an array of `response`. */
  list?: true;
  /** Success status (default 200). */
  status?: number;
  query?: Array<{ name: string; required?: boolean; description: string }>;
  example?: unknown;
  /** The request needs no bearer token. */
  public?: boolean;
  idempotent?: boolean;
  /** The success body is bytes of this media type (not JSON). */
  binary?: string;
}

const SPACE_Q = { name: 'space_id', required: true, description: 'The Teamspace' };
const ADMIN_RECORDS_Q = [
  { name: 'email', description: 'E-mail contains' }, { name: 'date_gt', description: 'Written after (ISO date-time)' }, { name: 'date_lt', description: 'Written before (ISO date-time)' },
];

/** The operations described in detail (the others are listed with the generic answer shapes). */
const OPS: Record<string, Op> = {
  'POST /api/auth/sign-up': { summary: 'Create an identity (e-mail and password)', body: 'SignUpRequest', response: 'TokenResponse', status: 201, public: true },
  'POST /api/auth/sign-in': { summary: 'Sign in', body: 'SignInRequest', response: 'TokenResponse', public: true },
  'GET /api/shop/billing/return': { summary: "The return from the platform's confirmation page of a plan (shop=<domain>): re-checks the shop's subscriptions, then redirects to the app", public: true },
  'GET /api/shop/products': {
    summary: "The shop Teamspace's products with videos (the platform's Admin API), searched by title, a page at a time, with the shop's primary and published locales as our language ids. 404 when the Teamspace is not a shop",
    response: 'ShopProductsAnswer',
    query: [SPACE_Q, { name: 'q', description: 'Words of the product title' }, { name: 'after', description: 'The `next` cursor of the previous page' }],
  },
  'POST /api/shop/import': {
    summary: "Dub the picked product videos: each is downloaded from the platform's CDN (SHOP_CDN_HOSTS) and made a project (several: one batch) linked to its product",
    body: 'ShopImportRequest', response: 'ShopImportAnswer', status: 201, query: [SPACE_Q],
  },
  'POST /api/shop/webhooks': { summary: "The platform's webhooks (app/uninstalled, customers/data_request, customers/redact, shop/redact), verified by HMAC with the app secret", public: true },
  'POST /api/shop/publish': {
    summary: "Publish a language's dubbed video to a product of the shop (in the background; again for the same product and language replaces the earlier dub). Editors of the shop's Teamspace",
    body: 'PublishRequest', response: 'Publication', status: 202,
  },
  'GET /api/shop/publish': {
    summary: "The project's publications to the shop's products (uploading, processing, ready, failed with the platform's message)", response: 'PublicationList',
    query: [{ name: 'project_id', required: true, description: 'A project of the shop\'s Teamspace' }],
  },
  'GET /api/shop/publish/products': {
    summary: "The shop's products (20, searched by q) to publish a dub to", response: 'ShopProductList',
    query: [SPACE_Q, { name: 'q', description: 'Search (title)' }],
  },
  'POST /api/auth/sign-out': { summary: 'Sign out: the refresh token (and the bearer\'s session) is revoked', body: 'SignOutRequest', status: 204, public: true },
  'GET /api/auth/oidc/config': { summary: 'Whether single sign-on (OpenID Connect) is configured, and its providers', response: 'OidcConfig', public: true },
  'POST /api/auth/refresh': { summary: 'Exchange a refresh token', body: 'RefreshRequest', response: 'TokenResponse', public: true },
  'POST /api/users': { summary: 'Create the product account of the signed-in identity', body: 'CreateUserRequest', response: 'User', status: 201 },
  'GET /api/users/current': { summary: 'The current user', response: 'User' },
  'PATCH /api/users/current': { summary: 'Update the current user', body: 'UpdateUserRequest', response: 'User' },
  'POST /api/users/current/email': {
    summary: 'Change the sign-in e-mail: a confirmation link is e-mailed to the new address; the e-mail changes when it is followed',
    body: 'EmailChangeRequest', response: 'EmailChange', status: 202, example: { email: 'new@example.com', confirm_email: 'New@Example.com' },
  },
  'GET /api/users/current/email': { summary: 'The e-mail change waiting for its confirmation', response: 'EmailChange' },
  'POST /api/users/current/email/confirm': { summary: 'Confirm an e-mail change with the token of its link', body: 'EmailChangeConfirmRequest', response: 'User' },
  'POST /api/users/settings/api/credentials': {
    summary: 'Create an API key (the key is answered only here)', body: 'CreateApiCredentialRequest', response: 'CreatedApiCredential', status: 201,
    example: { name: 'Production server' }, idempotent: true,
  },
  'GET /api/users/settings/api/credentials': { summary: 'List your API keys (never the secret)', response: 'ApiCredentialList' },
  'DELETE /api/users/settings/api/credentials/{id}': { summary: 'Revoke an API key', response: 'ApiCredential' },
  'GET /api/settings': { summary: 'Settings of the app, the user or a space (features, languages, limits)', response: 'Settings', query: [{ name: 'space_id', description: 'The Teamspace' }] },
  'GET /api/space/list': { summary: 'Your Teamspaces', response: 'Space', list: true },
  'DELETE /api/space/{id}': { summary: 'Delete a Teamspace (owner; its projects go with it)', response: 'DefaultSpace' },
  'GET /api/space/{id}/leave': { summary: 'Leave a Teamspace (members; the owner cannot)', response: 'DefaultSpace' },
  'DELETE /api/space/{id}/members/remove': {
    summary: 'Remove a member (owner)', response: 'Space', query: [{ name: 'member_id', required: true, description: 'The member\'s user id' }],
  },
  'PATCH /api/admin/users/{id}': { summary: 'Set a customer\'s plan or flags (superuser)', body: 'AdminUpdateUserRequest', response: 'AdminUser' },
  'POST /api/space/create': { summary: 'Create a Teamspace', body: 'CreateSpaceRequest', response: 'Space', status: 201 },
  'GET /api/space/{id}': { summary: 'A Teamspace', response: 'Space' },
  'PATCH /api/space/{id}': { summary: 'Rename or recolour a Teamspace (owner)', body: 'UpdateSpaceRequest', response: 'Space' },
  'GET /api/space/{id}/credits': { summary: 'Minutes of a Teamspace', response: 'Credits' },
  'GET /api/space/{id}/settings': { summary: 'Settings that apply in a Teamspace', response: 'Settings' },
  'POST /api/space/{id}/invite': { summary: 'Invite e-mails (owner)', body: 'InviteRequest', response: 'Space' },
  'POST /api/space/{id}/invite_link': {
    summary: 'A single-use, expiring link for a pending invite (owner; the token is answered only here)', body: 'InviteLinkRequest', response: 'InviteLink', status: 201,
  },
  'POST /api/space/join': { summary: 'Join the Teamspace of an invite link as an editor (410 when used or expired)', body: 'JoinRequest', response: 'JoinAnswer' },
  'DELETE /api/space/{id}/invite/remove': {
    summary: 'Withdraw a pending invite (owner)', response: 'Space', query: [{ name: 'invite_id', required: true, description: 'The invite' }],
  },
  'GET /api/space/limits': { summary: 'Your plan\'s Teamspace limits', response: 'SpaceLimits' },
  'POST /api/space/{id}/webhooks': {
    summary: 'Add a webhook endpoint (owner; answers its signing secret)', body: 'CreateWebhookRequest', response: 'WebhookEndpointWithSecret', status: 201,
    example: { url: 'https://example.com/hooks/dubbing', events: ['transcript.ready', 'dub.ready', 'job.failed'] }, idempotent: true,
  },
  'GET /api/space/{id}/webhooks': { summary: 'Webhook endpoints of a Teamspace (owner)', response: 'WebhookList' },
  'GET /api/space/{id}/webhooks/{wid}': { summary: 'One webhook endpoint with its secret (owner)', response: 'WebhookEndpointWithSecret' },
  'PATCH /api/space/{id}/webhooks/{wid}': { summary: 'Update a webhook endpoint; {"enabled": true} re-enables a disabled one', body: 'UpdateWebhookRequest', response: 'WebhookEndpointWithSecret' },
  'DELETE /api/space/{id}/webhooks/{wid}': { summary: 'Delete a webhook endpoint', status: 204 },
  'GET /api/space/{id}/webhooks/{wid}/deliveries': { summary: 'Latest deliveries of an endpoint with every attempt (status, latency)', response: 'WebhookDeliveryList' },
  'GET /api/project/paginated': {
    summary: 'Projects of a Teamspace, newest first (brotli or gzip when Accept-Encoding allows)', response: 'ProjectPage',
    query: [SPACE_Q, { name: 'limit', description: 'Page size (1-100, default 24)' }, { name: 'offset', description: 'Rows to skip' }, { name: 'name', description: 'Name contains' }],
  },
  'POST /api/project/create_transcript': {
    summary: 'Create a project from an uploaded video (media_id) or a link; the analysis starts at once', body: 'CreateTranscriptRequest', response: 'Project',
    query: [SPACE_Q], example: { name: 'Product demo', src_lang: 'en', dst_lang: 'es', media_id: '0b6f3c8e-3f4b-4f0a-9d55-5f2c1c7d8e90' }, idempotent: true,
  },
  'GET /api/project/{id}': { summary: 'A project (status, progress, results)', response: 'Project' },
  'POST /api/batch': {
    summary: 'Create a batch: many videos (uploads, links or a CSV) into several languages; each video is one multi-language project. 402 when the whole batch needs more minutes than the Teamspace has',
    body: 'CreateBatchRequest', response: 'Batch', status: 201, query: [SPACE_Q], idempotent: true,
    example: { name: 'Spring catalogue', src_lang: 'en', dst_langs: ['es', 'de'], items: [{ media_id: '0b6f3c8e-3f4b-4f0a-9d55-5f2c1c7d8e90' }, { link: 'https://youtu.be/dQw4w9WgXcQ' }], generate: true },
  },
  'GET /api/batch': { summary: 'Batches of a Teamspace, newest first', response: 'BatchList', query: [SPACE_Q] },
  'GET /api/batch/{id}': { summary: 'A batch with the status of each video and language', response: 'Batch' },
  'POST /api/batch/{id}/cancel': { summary: 'Cancel every job of the batch still running (their dubs get their minutes back)', response: 'Batch' },
  'POST /api/batch/{id}/items/{item}/retry': { summary: 'Retry the failed languages of one video of the batch', response: 'Batch' },
  'GET /api/batch/{id}/download': { summary: 'The finished dubbed videos of the batch as one ZIP (streamed)', binary: 'application/zip' },
  'GET /api/project/demo/covers': { summary: 'The demo video and the languages it can be opened in (trial users in the demo_project group)', response: 'DemoCovers' },
  'POST /api/project/demo': {
    summary: 'Open the demo project in a language: made (201), transcribed, translated and dubbed at no cost, or the one made before (200)',
    body: 'DemoRequest', response: 'Project', status: 201, example: { dst_lang: 'es' },
  },
  'PATCH /api/project/{id}': { summary: 'Rename a project or change speakers\' voices', body: 'UpdateProjectRequest', response: 'Project' },
  'POST /api/project/{id}/generate': { summary: 'Dub the video (charges minutes)', response: 'Project', idempotent: true },
  'POST /api/project/{id}/copy': { summary: 'Copy the project into another language', body: 'CopyProjectRequest', response: 'Project', example: { dst_lang: 'fr', free_dubbing: false }, idempotent: true },
  'POST /api/project/{id}/cancel': { summary: 'Stop the running job (409 when nothing runs); a cancelled dub gets its minutes back', response: 'Project' },
  'POST /api/project/{id}/restart': { summary: 'Start a cancelled analysis again from the stage it was stopped in (409 otherwise)', response: 'Project', idempotent: true },
  'GET /api/project/{id}/deliverables': {
    summary: 'The languages an all-languages deliverable of the video holds now: { languages: [{ lang, code, name, project_id, original, default }] } (the original first, then each finished dub; empty when none is finished)',
    response: 'DeliverableLanguages',
  },
  'POST /api/project/{id}/deliverables': {
    summary: 'Every finished language of the video in one deliverable: an MP4 (mov_text subtitles) or MKV (SRT subtitles) with the original audio and one audio and subtitle track per dubbed language (ISO 639-2 language tags, language-name titles, video stream-copied), or an HLS package (one audio and one WebVTT rendition per language). Made on the first call (seconds), then kept. Answers { format, url, languages }; 409 when no language is dubbed yet',
    response: 'DeliverableAnswer',
    query: [
      { name: 'format', description: 'mp4 (default), mkv or hls' },
      { name: 'default', description: 'The language whose audio plays by default (its code, e.g. es); the original by default' },
    ],
  },
  'GET /api/deliverables/hls/{token}/{file}': {
    summary: 'A file of an HLS package (master.m3u8, its playlists, segments and WebVTT), behind the signed link that POST /api/project/{id}/deliverables?format=hls answers',
    public: true, binary: 'application/vnd.apple.mpegurl',
  },
  'POST /api/project/{id}/media_download': { summary: 'A download URL for a result', body: 'MediaDownloadRequest', response: 'MediaDownloadResponse', example: { media_type: 'video' } },
  'GET /api/project/{id}/transcript': {
    summary: 'The segments of a project (with a weak ETag: If-None-Match with the current one answers 304 without a body; brotli or gzip when Accept-Encoding allows)',
    response: 'TranscriptResponse',
  },
  'PATCH /api/project/{id}/transcript': {
    summary: 'Change segments (at most 50 per call)', body: 'TranscriptPatchRequest', response: 'TranscriptResponse',
  },
  'POST /api/project/{id}/transcript': { summary: 'Add segments', body: 'TranscriptAddRequest', response: 'TranscriptResponse' },
  'POST /api/project/{id}/transcript/merge': { summary: 'Merge segments', body: 'TranscriptMergeRequest', response: 'TranscriptResponse' },
  'POST /api/project/{id}/transcript/{segmentId}/borrow_pause': {
    summary: 'Move the segment\'s end into the silence after it (up to the next speech, at most 2 s), so its voice needs less speed-up; 409 when there is no pause to borrow',
    response: 'SegmentTimingResponse',
  },
  'POST /api/project/{id}/transcript/{segmentId}/keep_original': {
    summary: 'Keep the original audio over the segment (not dubbed: the original speech and background play there), or dub it again with keep false',
    body: 'KeepOriginalRequest', response: 'SegmentTimingResponse', example: { keep: true },
  },
  'POST /api/project/{id}/run_check_face_task': { summary: 'Check the video for faces (the project\'s face_check fills in)', response: 'Project' },
  'POST /api/project/{id}/run_lipsync_task': { summary: 'Lip-sync the dub', body: 'RunLipsyncRequest', response: 'Project' },
  'POST /api/project/{id}/feedback': { summary: 'Feedback on a project', body: 'FeedbackRequest' },
  'PUT /api/project/{id}/prompt': { summary: 'The translation instructions of a project', body: 'PromptRequest', response: 'Project' },
  'GET /api/project/{id}/asr_words': { summary: 'The words speech recognition should know (product and place names)', response: 'AsrWordsResponse' },
  'PUT /api/project/{id}/asr_words': {
    summary: 'Set the words speech recognition should know (at most 200, 60 characters each); the dictionary terms are added to them',
    body: 'AsrWordsRequest', response: 'AsrWordsResponse', example: { words: ['Zephyrix', 'Ouarzazate'] },
  },
  'GET /api/project/{id}/peaks': {
    summary: 'Waveform peaks of the source audio or the dub: min,max signed-byte pairs per bucket (headers x-peaks-resolution, -from, -count, -total); 409 while the track does not exist yet',
    binary: 'application/octet-stream',
    query: [
      { name: 'track', required: true, description: 'source or dub' },
      { name: 'resolution', description: 'Buckets per second: 5, 50 or 500 (default 5)' },
      { name: 'from', description: 'First bucket (default 0)' },
      { name: 'count', description: 'Buckets wanted (default and most 1048576)' },
    ],
  },
  'GET /api/project/{id}/voice_pool': { summary: 'Voices available for the target language', response: 'VoicePool' },
  'GET /api/voice_preset': { summary: 'The Voice Clone Library of a Teamspace (with the plan\'s limit)', response: 'VoicePresetList', query: [SPACE_Q] },
  'POST /api/voice_preset/create': {
    summary: 'Clone a voice from an uploaded sample (audio, or a video\'s sound; at most 5 minutes, with speech); status processing, then done or error',
    body: 'CreateVoicePresetRequest', response: 'VoicePreset', status: 201, query: [SPACE_Q],
    example: { label: 'Narrator', media_id: '0b6f3c8e-3f4b-4f0a-9d55-5f2c1c7d8e90', similarity_boost: 0.75, stability: 0.5 },
  },
  'POST /api/voice_preset/from_project': {
    summary: 'Clone a project\'s speaker into the library, or an instant voice preset of that speaker (is_temporary)', body: 'VoicePresetFromProjectRequest',
    response: 'VoicePreset', status: 201,
  },
  'GET /api/voice_preset/statuses': { summary: 'Statuses of voice presets (processing, done, error)', response: 'VoicePresetStatuses', query: [{ name: 'ids', required: true, description: 'Comma-separated preset ids' }] },
  'GET /api/voice_preset/{id}': { summary: 'A voice preset', response: 'VoicePreset' },
  'PATCH /api/voice_preset/{id}': { summary: 'Rename a voice preset or change its accent (similarity_boost) and expressiveness (stability)', body: 'UpdateVoicePresetRequest', response: 'VoicePreset' },
  'DELETE /api/voice_preset/{id}': { summary: 'Delete a voice preset' },
  'GET /api/voice_preset/{id}/sample': {
    summary: 'A WAV of the voice saying a sample sentence',
    query: [
      { name: 'language', description: 'Language code (default en)' }, { name: 'similarity_boost', description: 'Accent, 0-1 (default: the preset\'s)' },
      { name: 'stability', description: 'Stability, 0-1 (default: the preset\'s)' },
    ],
  },
  'POST /api/voice_preset/{id}/update_settings': { summary: 'Change accent and expressiveness; projects using the voice re-voice those speakers on their next generate', body: 'VoicePresetSettingsRequest', response: 'VoicePreset' },
  'POST /api/voice_preset/{id}/update_settings_from_project': { summary: 'Change the settings from the editor of a project whose speaker uses the voice', body: 'VoicePresetSettingsRequest', response: 'VoicePreset' },
  'POST /api/library/media/extract-audio': { summary: 'Upload a video (multipart field file); its sound is kept as an audio upload (16 kHz mono WAV)', query: [SPACE_Q] },
  'POST /api/users/set_voice_preset_tutorial_displayed': { summary: 'The voice clone tutorial was shown', response: 'VoiceTutorialFlags' },
  'POST /api/users/set_instant_voice_clone_tooltip_displayed': { summary: 'The instant voice clone tooltip was shown', response: 'VoiceTutorialFlags' },
  'GET /api/space/{id}/cast': { summary: 'The cast of a Teamspace: people kept with their measured voice and their voice per language (plan: voice_presets)', response: 'CastList' },
  'POST /api/space/{id}/cast': {
    summary: 'Keep a project\'s speaker in the cast ("Keep in cast"): its voice profile and its voice in the project\'s language', body: 'AddCastMemberRequest',
    response: 'CastMember', status: 201,
  },
  'PATCH /api/space/{id}/cast/{member}': { summary: 'Rename a cast member or set (null: forget) its voice per language', body: 'UpdateCastMemberRequest', response: 'CastMember' },
  'DELETE /api/space/{id}/cast/{member}': { summary: 'Remove a cast member' },
  'POST /api/space/{id}/cast/{member}/merge': { summary: 'Merge another member (the same person kept twice) into this one', body: 'MergeCastMemberRequest', response: 'CastMember' },
  'GET /api/space/{id}/cast/recognitions': {
    summary: 'Speakers of a project recognised from the cast at voice selection', response: 'CastRecognitionList',
    query: [{ name: 'project_id', required: true, description: 'A project of the Teamspace' }],
  },
  'POST /api/space/{id}/cast/undo': { summary: 'Undo a recognition: the speaker gets back its name and voice', body: 'CastUndoRequest' },
  'GET /api/users/voice_tutorials': { summary: 'Which voice tutorials were shown', response: 'VoiceTutorialFlags' },
  'POST /api/tools/summarize': { summary: 'AI rewrite of a text', body: 'SummarizeRequest', response: 'SummarizeResponse' },
  'POST /api/project/{id}/transcript/{segmentId}/shorten': {
    summary: 'Shorten a segment to fit its slot (LLM engine, else offline rewrites) and save it; 409 when it already fits, 422 when nothing can be shortened',
    body: 'SegmentShortenRequest', bodyOptional: true, response: 'SegmentShortenResponse',
  },
  'POST /api/project/{id}/transcript/{segmentId}/rewrite': {
    summary: 'An AI proposal for one segment\'s translation (shorten, rephrase or follow instructions); nothing is saved', body: 'SegmentRewriteRequest', response: 'SegmentRewriteResponse',
  },
  'POST /api/project/{id}/burn_subtitles': {
    summary: 'Burn the subtitles into the video', response: 'Project', query: [{ name: 'video_type', description: 'translated (default) or original' }],
  },
  'PATCH /api/project/{id}/glossary': {
    summary: 'Set the project\'s dictionary', response: 'Project', query: [{ name: 'glossary_id', required: true, description: 'A dictionary of the Teamspace, or null for none' }],
  },
  'GET /api/project/{id}/quality': {
    summary: 'The quality report of the last dub (format=csv: as a CSV file)', response: 'QualityReport', query: [{ name: 'format', description: 'json (default) or csv' }],
  },
  'GET /api/library/info/video': {
    summary: 'What the link\'s site tells of a video (title, duration, thumbnail) before it is downloaded; 400 for a playlist, a live stream or a video too long',
    response: 'VideoInfo', query: [{ name: 'link', required: true, description: 'The video\'s address' }],
  },
  'POST /api/users/sister_sso': { summary: 'Sign in to the sister product: the address to open', response: 'SisterSsoAnswer' },
  'POST /api/glossary': { summary: 'Create a dictionary', body: 'CreateGlossaryRequest', response: 'Glossary', status: 201 },
  'PATCH /api/glossary/{id}': { summary: 'Rename a dictionary or replace its entries', body: 'UpdateGlossaryRequest', response: 'Glossary' },
  'DELETE /api/glossary': { summary: 'Delete a dictionary', query: [{ name: 'glossary_id', required: true, description: 'The dictionary' }] },
  'GET /api/glossary/{id}/export': { summary: 'The dictionary as a CSV file', binary: 'text/csv' },
  'GET /api/payments/products': { summary: 'Plans and minute packs with their prices', response: 'ProductsResponse' },
  'GET /api/payments/create_checkout_session_subscription': {
    summary: 'A checkout for a plan', response: 'CheckoutResponse',
    query: [
      { name: 'price_id', required: true, description: 'The plan\'s price' }, { name: 'success_url', required: true, description: 'Where the checkout returns after paying' },
      { name: 'cancel_url', required: true, description: 'Where the checkout returns when cancelled' }, { name: 'promotion_code', description: 'An id from POST promotion_code' },
    ],
  },
  'POST /api/payments/create_checkout_session_payment': { summary: 'A checkout for minutes of the Teamspace', body: 'PaymentCheckoutRequest', response: 'CheckoutResponse' },
  'GET /api/payments/billing_portal': {
    summary: 'The payment provider\'s billing portal', response: 'BillingPortalResponse', query: [{ name: 'return_url', required: true, description: 'Where the portal returns' }],
  },
  'POST /api/payments/promotion_code': { summary: 'Check a promotion code', body: 'PromotionCodeRequest', response: 'PromotionCode' },
  'POST /api/payments/subscription': { summary: 'Change the plan', body: 'ChangePlanRequest', response: 'SubscriptionAnswer' },
  'POST /api/payments/cancel_subscription': { summary: 'Cancel the plan at the end of its period', response: 'SubscriptionAnswer' },
  'POST /api/payments/cancel_subscription_cancellation': { summary: 'Undo a cancellation', response: 'SubscriptionAnswer' },
  'GET /api/shop/billing/status': { summary: 'The platform billing of a shop Teamspace', response: 'ShopBillingStatus', query: [SPACE_Q] },
  'POST /api/shop/billing/sync': { summary: 'Re-check the shop\'s subscriptions on the platform, then the status', response: 'ShopBillingStatus', query: [SPACE_Q] },
  'POST /api/shop/billing/subscribe': {
    summary: 'Subscribe the shop to a plan (answers the platform\'s confirmation page)', body: 'ShopSubscribeRequest', response: 'ShopSubscribeResponse', query: [SPACE_Q],
  },
  'POST /api/shop/billing/minutes': {
    summary: 'Buy minutes as a usage charge of the shop\'s subscription (once per request_id)', body: 'ShopMinutesRequest', response: 'ShopMinutesResponse', query: [SPACE_Q],
  },
  'POST /api/support/messages': { summary: 'Write to support (the install\'s staff)', body: 'SupportMessageRequest', response: 'SupportConversation', status: 201 },
  'POST /api/survey/add': { summary: 'Answer a survey', body: 'SurveyAddRequest', status: 201 },
  'POST /api/survey/reject': { summary: 'Decline a survey', body: 'SurveyRejectRequest' },
  'PATCH /api/admin/survey/surveys/{id}': { summary: 'Turn a survey on or off (superuser)', body: 'SurveyActiveRequest' },
  'POST /api/admin/support/threads/{id}/messages': { summary: 'Answer a support thread (superuser)', body: 'SupportReplyRequest', response: 'SupportReplyAnswer', status: 201 },
  'POST /api/admin/users/{id}/minutes': { summary: 'Grant minutes to a user\'s default Teamspace (superuser; once per request_id)', body: 'AdminMinutesGrantRequest', response: 'AdminMinutesGrantResult' },
  'GET /api/admin/payments': { summary: 'The payment provider and how local checkouts work (superuser)', response: 'AdminPaymentsAnswer' },
  'PUT /api/admin/payments': { summary: 'How local checkouts work (superuser)', body: 'AdminPaymentsSettingsRequest', response: 'AdminPaymentsAnswer' },
  'PUT /api/admin/settings': { summary: 'The maintenance flag and warning banner (superuser)', body: 'AdminSettingsRequest' },
  'GET /api/admin/feedback/csv': { summary: 'Project feedback as a CSV file (superuser)', binary: 'text/csv', query: ADMIN_RECORDS_Q },
  'GET /api/admin/survey/csv': { summary: 'Survey answers as a CSV file (superuser)', binary: 'text/csv', query: ADMIN_RECORDS_Q },
  'GET /api/admin/users/csv': {
    summary: 'The customer search as a CSV file (superuser)', binary: 'text/csv',
    query: [
      { name: 'email', description: 'E-mail contains' }, { name: 'date_gt', description: 'Signed up after' }, { name: 'date_lt', description: 'Signed up before' },
      { name: 'subscription_type', description: 'Plan tier' },
    ],
  },
};

/** A route as the routers registered it. */
export interface RegisteredRoute {
  method: string;
  path: string;
}

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'] as const;
/** Methods documented for a route registered for every method (the tus upload endpoint). */
const ALL_METHODS = ['post', 'head', 'patch', 'delete', 'options'];

/** ':id' -> '{id}' (and Hono's ':id{regex}' too). */
export const openApiPath = (p: string) => p.replace(/:(\w+)(\{[^}]*\})?/g, '{$1}').replace(/\/+$/, '') || '/';

/**
 * The operations of a list of Hono routes: method routes as they are; a route registered for ALL methods counts
 * only when no method route shares its path and it is not a wildcard (else it is middleware).
 */
export function operationsOf(routes: RegisteredRoute[]): Array<{ method: string; path: string }> {
  const out = new Map<string, { method: string; path: string }>();
  const concrete = new Set(routes.filter((r) => r.method !== 'ALL').map((r) => openApiPath(r.path)));
  for (const r of routes) {
    if (r.path.includes('*')) continue;
    const path = openApiPath(r.path);
    const methods = r.method === 'ALL' ? (concrete.has(path) ? [] : ALL_METHODS) : [r.method.toLowerCase()];
    for (const m of methods) if ((HTTP_METHODS as readonly string[]).includes(m)) out.set(`${m} ${path}`, { method: m, path });
  }
  return [...out.values()];
}

/** Requests are described as the client sends them (defaults optional), answers as the server sends them. */
function jsonSchema(s: v.GenericSchema, typeMode: 'input' | 'output'): Record<string, unknown> {
  const j = toJsonSchema(s, { errorMode: 'ignore', typeMode }) as Record<string, unknown>;
  delete j.$schema;
  return j;
}

const ref = (name: SchemaName) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: unknown, example?: unknown) => ({ 'application/json': { schema, ...(example !== undefined ? { example } : {}) } });

const ERRORS: Record<string, string> = {
  '401': 'Missing, malformed, unknown, expired or revoked credentials',
  '403': 'No access to this resource, or the plan does not include the feature',
  '404': 'Not found',
  '409': 'The state does not allow it',
  '422': 'Validation error: {"detail": [{"loc", "msg", "type"}]}',
  '429': 'Too many requests (API key per-minute limit, or the plan\'s jobs at once): see Retry-After',
};

/** The document of the routes of the /api router (paths relative to /api). */
export function buildOpenApi(apiRoutes: RegisteredRoute[], o: { version?: string } = {}): Record<string, unknown> {
  const routes = apiRoutes.map((r) => ({ method: r.method, path: `/api${r.path}` }));
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { method, path } of operationsOf(routes)) {
    const key = `${method.toUpperCase()} ${path}`;
    const op = OPS[key];
    const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    const query = (op?.query ?? []).map((q) => ({ name: q.name, in: 'query', required: !!q.required, description: q.description, schema: { type: 'string' } }));
    const headers = op?.idempotent
      ? [{ name: 'Idempotency-Key', in: 'header', required: false, description: 'A retry with the same key and body answers the first answer and creates nothing; another body is 422. Kept 24 hours.', schema: { type: 'string', maxLength: 255 } }]
      : [];
    const status = String(op?.status ?? 200);
    const responses: Record<string, unknown> = {
      [status]: status === '204'
        ? { description: 'Done' }
        : op?.binary
          ? { description: 'Success', content: { [op.binary]: { schema: { type: 'string', format: 'binary' } } } }
          : { description: 'Success', content: json(op?.response ? (op.list ? { type: 'array', items: ref(op.response) } : ref(op.response)) : { type: 'object' }) },
    };
    for (const [code, description] of Object.entries(ERRORS)) {
      if (op?.public && code === '401') continue;
      responses[code] = { description, content: json(ref('Error')) };
    }
    const tag = path.split('/')[2] ?? 'api';
    paths[path] ??= {};
    paths[path][method] = {
      operationId: `${method}_${path.replace(/^\/api\//, '').replace(/[{}]/g, '').replace(/[^\w]+/g, '_')}`,
      summary: op?.summary ?? `${method.toUpperCase()} ${path}`,
      tags: [tag],
      ...(params.length + query.length + headers.length > 0 ? { parameters: [...params, ...query, ...headers] } : {}),
      ...(op?.body ? { requestBody: { required: !op.bodyOptional, content: json(ref(op.body), op.example) } } : {}),
      responses,
      ...(op?.public ? { security: [] } : {}),
    };
  }
  const schemas: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(SCHEMAS)) schemas[name] = jsonSchema(s, name.endsWith('Request') ? 'input' : 'output');
  return {
    openapi: '3.1.0',
    info: {
      title: 'Dubbing Studio API',
      version: o.version ?? '1',
      description:
        'Translate and dub videos from your own code. Authenticate with `Authorization: Bearer <API key>` (create keys on the account page; ' +
        'Business plan and above). Errors are `{"detail": "text"}`; validation errors are 422 with `{"detail": [{"loc", "msg", "type"}]}`. ' +
        'Webhooks are signed with the Standard Webhooks scheme (headers webhook-id, webhook-timestamp, webhook-signature).',
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An API key (dsk_...) or an access token from /api/auth/sign-in' },
      },
      schemas,
    },
  };
}
