// The current user and the account page.
export {
  CURRENT_USER_KEY,
  useCurrentUser,
  createAccount,
  updateCurrentUser,
  deleteCurrentUser,
  planTierOf,
  planNameOf,
  isSubscriptionActive,
  type CreateAccountBody,
  type UserPatch,
} from './api';
