// Standalone build: the app with the identity-service auth provider (/api/auth).
import { mountApp } from '../src/app/app';
import { createIdentityProvider } from '../src/lib/auth/identity';

mountApp(document.getElementById('root'), createIdentityProvider());
