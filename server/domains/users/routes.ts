// /api/users: create the product account, read/update/delete the current one.
import { Hono } from 'hono';
import { CreateUserRequest, UpdateUserRequest } from '../../../contract/schemas/user';
import { unauthorized } from '../../http/errors';
import type { AppEnv } from '../../http/env';
import { jsonBody } from '../../http/validate';
import { createAccount, currentUserView, deleteAccount, joinFeatureGroup, updateProfile } from './service';
import { EmailChangeConfirmRequest, EmailChangeRequest, FeatureGroupRequest } from '../../../contract/schemas/onboarding';
import { confirmEmailChange, currentEmailChange, requestEmailChange } from './email';
import { afterDeletion } from '../retention/service';
import { sisterSsoRedirect } from './sso';
import { routeFacts } from '../../http/route-facts';

export const usersRoutes = new Hono<AppEnv>()
  .post('/', routeFacts({
    summary: 'Create the product account of the signed-in identity',
    body: 'CreateUserRequest',
    response: 'User',
    status: 201,
    identity: true,
    errors: { 400: 'The e-mail is not the signed-in identity\'s' },
  }), async (c) => {
    const body = await jsonBody(c, CreateUserRequest);
    const identity = c.get('identity');
    if (!identity) throw unauthorized();
    const deps = c.get('deps');
    const user = await createAccount(deps.db, identity.identityId, body, { demoGroup: deps.config.demoForNewUsers });
    return c.json(await currentUserView(deps.db, user, deps.config.jwtSecret), 201);
  })
  .get('/current', routeFacts({ summary: 'The current user', response: 'User' }), async (c) => {
    const deps = c.get('deps');
    return c.json(await currentUserView(deps.db, c.get('user'), deps.config.jwtSecret));
  })
  .patch('/current', routeFacts({ summary: 'Update the current user', body: 'UpdateUserRequest', response: 'User' }), async (c) => {
    const body = await jsonBody(c, UpdateUserRequest);
    const deps = c.get('deps');
    const user = await updateProfile(deps.db, c.get('user'), body);
    return c.json(await currentUserView(deps.db, user, deps.config.jwtSecret));
  })
  // Changing the sign-in e-mail: the link goes to the new address; following it changes the e-mail.
  .get('/current/email', routeFacts({ summary: 'The e-mail change waiting for its confirmation', response: 'EmailChange' }), async (c) => c.json(await currentEmailChange(c.get('deps').db, c.get('user'))))
  .post('/current/email', routeFacts({
    summary: 'Change the sign-in e-mail: a confirmation link is e-mailed to the new address; the e-mail changes when it is followed',
    body: 'EmailChangeRequest',
    response: 'EmailChange',
    status: 202,
    example: { email: 'new@example.com', confirm_email: 'New@Example.com' },
    errors: {
      400: 'The new e-mail is the current one',
      502: 'The confirmation e-mail could not be sent',
      503: 'E-mail is not configured on this server',
    },
  }), async (c) => {
    const body = await jsonBody(c, EmailChangeRequest);
    return c.json(await requestEmailChange(c.get('deps'), c.get('user'), body.email, new URL(c.req.url).origin), 202);
  })
  .post('/current/email/confirm', routeFacts({
    summary: 'Confirm an e-mail change with the token of its link',
    body: 'EmailChangeConfirmRequest',
    response: 'User',
    errors: { 410: 'The link was used already or has expired' },
  }), async (c) => {
    const body = await jsonBody(c, EmailChangeConfirmRequest);
    const deps = c.get('deps');
    const user = await confirmEmailChange(deps.db, c.get('user'), body.token);
    return c.json(await currentUserView(deps.db, user, deps.config.jwtSecret));
  })
  .post('/feature_group', routeFacts({
    summary: 'Join an A/B feature group (the option of a named group): the account\'s feature groups',
    body: 'FeatureGroupRequest',
    response: 'FeatureGroup',
    list: true,
  }), async (c) => {
    const body = await jsonBody(c, FeatureGroupRequest);
    return c.json(await joinFeatureGroup(c.get('deps').db, c.get('user'), body));
  })
  .post('/sister_sso', routeFacts({
    summary: 'Sign in to the sister product: the address to open',
    response: 'SisterSsoAnswer',
    errors: { 503: 'The sister product is not configured on this server' },
  }), async (c) => {
    const deps = c.get('deps');
    return c.json(await sisterSsoRedirect(deps.db, deps.config, c.get('user')));
  })
  .get('/feature_groups', routeFacts({ summary: 'The account\'s A/B feature groups', response: 'FeatureGroup', list: true }), (c) =>
    c.json(c.get('user').feature_groups ?? []))
  .delete('/current', routeFacts({ summary: 'Delete the current account (its Teamspaces, projects and uploads go with it)', status: 204 }), async (c) => {
    await deleteAccount(c.get('deps').db, c.get('user'));
    // Its spaces, projects and uploads went with it: their stored files go now.
    await afterDeletion(c.get('deps'));
    return c.body(null, 204);
  });
