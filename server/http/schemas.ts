// The contract's schemas the routes name in their facts (routeFacts body/response) and the OpenAPI document
// lists under components.schemas (server/app/openapi.ts): one table, each from the contract.
import type * as v from 'valibot';
import * as apiS from '../../contract/schemas/api';
import * as auth from '../../contract/schemas/auth';
import * as batch from '../../contract/schemas/batch';
import * as glossary from '../../contract/schemas/glossary';
import * as library from '../../contract/schemas/library';
import * as onboarding from '../../contract/schemas/onboarding';
import * as payments from '../../contract/schemas/payments';
import * as shopBilling from '../../contract/schemas/shop-billing';
import * as quality from '../../contract/schemas/quality';
import { Deleted, ErrorBody, ErrorDetailItem } from '../../contract/schemas/common';
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
export const SCHEMAS = {
  Project: project.Project, ProjectPage: project.ProjectPage, FolderList: project.FolderList, Media: library.Media, CreateTranscriptRequest: project.CreateTranscriptRequest,
  UpdateProjectRequest: project.UpdateProjectRequest, CopyProjectRequest: project.CopyProjectRequest,
  MediaDownloadRequest: project.MediaDownloadRequest, RunLipsyncRequest: project.RunLipsyncRequest, FeedbackRequest: project.FeedbackRequest, FeedbackAnswer: project.FeedbackAnswer, SegmentDeletedAnswer: project.SegmentDeletedAnswer,
  PromptRequest: project.PromptRequest, AsrWordsRequest: project.AsrWordsRequest, AsrWordsResponse: project.AsrWordsResponse, TranscriptResponse: project.TranscriptResponse, TranscriptAddRequest: project.TranscriptAddRequest,
  TranscriptPatchRequest: project.TranscriptPatchRequest, TranscriptMergeRequest: project.TranscriptMergeRequest, Segment: project.Segment,
  KeepOriginalRequest: project.KeepOriginalRequest, SegmentTimingResponse: project.SegmentTimingResponse,
  VoicePool: project.VoicePool,
  CastMember: cast.CastMember, CastList: cast.CastList, AddCastMemberRequest: cast.AddCastMemberRequest, UpdateCastMemberRequest: cast.UpdateCastMemberRequest,
  MergeCastMemberRequest: cast.MergeCastMemberRequest, CastRecognitionList: cast.CastRecognitionList, CastUndoRequest: cast.CastUndoRequest,
  CastUndoAnswer: cast.CastUndoAnswer,
  User: user.User, CreateUserRequest: user.CreateUserRequest, UpdateUserRequest: user.UpdateUserRequest,
  Space: space.Space, CreateSpaceRequest: space.CreateSpaceRequest, UpdateSpaceRequest: space.UpdateSpaceRequest,
  InviteRequest: space.InviteRequest, InviteLinkRequest: space.InviteLinkRequest, InviteLink: space.InviteLink,
  RemoveInviteRequest: space.RemoveInviteRequest, RemoveMemberRequest: space.RemoveMemberRequest,
  JoinRequest: space.JoinRequest, JoinAnswer: space.JoinAnswer, Credits: space.Credits, SpaceLimits: space.SpaceLimits, UsagePage: space.UsagePage,
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
  FeatureGroupRequest: onboarding.FeatureGroupRequest, FeatureGroup: user.FeatureGroup,
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
  CreateGlossaryRequest: glossary.CreateGlossaryRequest, UpdateGlossaryRequest: glossary.UpdateGlossaryRequest, Glossary: glossary.Glossary, GlossaryImportResult: glossary.GlossaryImportResult, GlossaryDeleted: glossary.GlossaryDeleted,
  ProductsResponse: payments.ProductsResponse, LatestPaymentInfo: payments.LatestPaymentInfo, CheckoutResponse: payments.CheckoutResponse, PaymentCheckoutRequest: payments.PaymentCheckoutBody,
  BillingPortalResponse: payments.BillingPortalResponse, PromotionCodeRequest: payments.PromotionCodeRequest, PromotionCode: payments.PromotionCode,
  ChangePlanRequest: payments.ChangePlanRequest, SubscriptionAnswer: user.SubscriptionAnswer,
  BillingDetailsRequest: payments.BillingDetailsRequest, BillingDetailsAnswer: payments.BillingDetailsAnswer,
  AdminMinutesGrantRequest: payments.AdminMinutesGrant, AdminMinutesGrantResult: payments.AdminMinutesGrantResult,
  AdminPaymentsSettingsRequest: payments.AdminPaymentsSettings, AdminPaymentsAnswer: payments.AdminPaymentsAnswer,
  AdminSettingsRequest: settings.AdminSettingsUpdate, AppFlags: settings.AppFlags,
  ShopBillingStatus: shopBilling.ShopBillingStatus, ShopSubscribeRequest: shopBilling.ShopSubscribeRequest, ShopSubscribeResponse: shopBilling.ShopSubscribeResponse,
  ShopMinutesRequest: shopBilling.ShopMinutesRequest, ShopMinutesResponse: shopBilling.ShopMinutesResponse,
  SupportMessageRequest: onboarding.SupportMessageRequest, SupportConversation: onboarding.SupportConversation, SupportThread: onboarding.SupportThread,
  SupportReplyRequest: onboarding.SupportReplyRequest, SupportReplyAnswer: onboarding.SupportReplyAnswer,
  SurveyAddRequest: onboarding.SurveyAddRequest, SurveyRejectRequest: onboarding.SurveyRejectRequest, SurveyActiveRequest: onboarding.SurveyActiveRequest, SurveyRecorded: onboarding.SurveyRecorded,
  AdminFeedback: onboarding.AdminFeedback, AdminSurveyAnswer: onboarding.AdminSurveyAnswer, AdminSurvey: onboarding.AdminSurvey,
  Error: ErrorBody, ValidationIssue: ErrorDetailItem, Deleted,
} satisfies Record<string, v.GenericSchema>;
export type SchemaName = keyof typeof SCHEMAS;
