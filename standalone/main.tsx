// Standalone build: the app with the identity-service auth provider (/api/auth).
import { mountApp } from '../src/app/App';
import { createIdentityProvider } from '../src/lib/auth/identity';

mountApp(document.getElementById('root'), createIdentityProvider());
