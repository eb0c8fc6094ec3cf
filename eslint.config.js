// ESLint: the house rules of ARCHITECTURE.md (at the root) as import boundaries, no import cycles, TypeScript and React hooks.
// `npm run lint` runs it with knip (unused files, exports and dependencies); `npm test` runs `npm run lint`.
import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import checkFile from 'eslint-plugin-check-file';
import importX from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

/** A boundary: files under `target` may not import files under `from` (except those under `except`). */
const zone = (target, from, message, except) => ({ target, from, message, ...(except ? { except } : {}) });

// The direction between folders (each line: who may NOT import what).
const BOUNDARIES = [
  // contract/ is the API as data shared by browser and server: it imports nothing of the project.
  zone('./contract', ['./src', './server', './embed', './standalone', './tests', './bench'], 'contract/ imports nothing of the project'),
  // The browser never reaches the server's code.
  zone(['./src', './embed', './standalone'], './server', 'the browser code never imports server/'),
  // src/app -> src/features -> src/lib, src/ui.
  zone('./src/features', './src/app', 'src/features/* never import src/app (app composes features, not the other way)'),
  zone(['./src/lib', './src/ui'], ['./src/app', './src/features'], 'src/lib and src/ui import neither src/app nor src/features'),
  zone('./src/lib', './src/ui', 'src/lib imports no presentation (src/ui)'),
  // server: app -> domains -> http (the kit of the routes) -> jobs (the job runtime), engines, db, cache, storage, media.
  zone(['./server/db', './server/cache', './server/storage', './server/media', './server/live', './server/errors.ts', './server/caller.ts'], ['./server/app', './server/http', './server/domains', './server/jobs'], 'server/db, cache, storage, media, live, errors.ts and caller.ts are below the domains: they import no app, http, domain or job runtime code'),
  zone('./server/domains', './server/app', 'domains never import the app (server/app mounts them)'),
  // The app on top, the kit below: server/http holds what routes use and knows no domain (what a guard needs of a
  // domain, the app hands to each request: `callers` in server/http/env.ts).
  zone('./server/http', ['./server/domains', './server/app'], 'server/http is the kit the routes use: it imports no domain and not the app (server/app assembles them)'),
  // Services know no HTTP: only a domain's routes.ts (its HTTP edge) imports server/http.
  zone('./server/domains/**/!(routes).ts', './server/http', 'only routes.ts files of a domain import server/http: services take plain arguments and throw DomainError (server/errors.ts)'),
  // Media (ffmpeg, measurements) runs below the engines: it never calls a model.
  zone('./server/media', './server/engines', 'server/media imports no engine: the stages hand it what the engines made'),
  // engines talk to models only: no domain, job runtime or HTTP layer.
  zone('./server/engines', ['./server/app', './server/domains', './server/jobs', './server/http'], 'server/engines import no app, domain, job runtime or http code'),
  // The job runtime runs stages of subjects it does not know: the domain gives it its handlers and hooks
  // (server/jobs/subjects.ts; the project pipeline is server/domains/projects/pipeline), wired by the composition root.
  zone('./server/jobs', ['./server/app', './server/domains', './server/http', './server/engines'], 'server/jobs (the job runtime) imports no app, domain, http or engine code: the domain gives it its stage handlers and hooks (server/jobs/subjects.ts)'),
];

// No cross-feature imports: each src/features/<name> may import only itself (plus lib, ui and contract).
// The list is read from the folders, so a new feature is guarded from its first file.
const FEATURES = readdirSync(`${import.meta.dirname}/src/features`, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);
const CROSS_FEATURE = FEATURES.map((f) =>
  zone(`./src/features/${f}`, './src/features', `src/features/${f} imports no other feature (move the shared piece to src/lib, src/ui or contract/)`, [`./${f}`]),
);

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'data/**', 'test-artifacts/**', '.tmp/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx,js,mjs}'],
    plugins: { 'import-x': importX, 'react-hooks': reactHooks },
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
      'import-x/extensions': ['.ts', '.tsx', '.js'],
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: [...BOUNDARIES, ...CROSS_FEATURE] }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-self-import': 'error',
      'import-x/no-useless-path-segments': 'error',
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'warn',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  {
    // Services know no HTTP framework: hono (its types included) stays in routes.ts files, server/http (the kit)
    // and server/app (the app).
    files: ['server/domains/**/*.ts'],
    ignores: ['server/domains/**/routes.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['hono', 'hono/*', '@hono/*'], message: 'services know no HTTP framework: only a domain\'s routes.ts imports hono' }] }],
    },
  },
  {
    // SQL lives in repositories, typed by the query builder (server/db/sql.ts over the generated schema): no raw SQL
    // text run elsewhere, and no asserted row type anywhere.
    files: ['server/**/*.ts'],
    ignores: ['server/db/**', 'server/**/repository.ts', 'server/**/*-repository.ts', 'server/domains/billing/ledger.ts', 'server/app/health.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name=/^(query|one|maybeOne|exec)$/]:not([callee.object.property.name='req'])[arguments.0.type=/^(Literal|TemplateLiteral)$/]",
          message: 'SQL belongs in a repository (repository.ts): call a repository function',
        },
        { selector: 'CallExpression[callee.property.name=/^(query|one|maybeOne)$/][typeArguments]', message: 'no asserted row type: build the query with q (server/db/sql.ts)' },
      ],
    },
  },
  {
    files: ['server/**/repository.ts', 'server/**/*-repository.ts', 'server/domains/billing/ledger.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: 'CallExpression[callee.property.name=/^(query|one|maybeOne)$/][typeArguments]', message: 'no asserted row type: build the query with q (server/db/sql.ts)' },
      ],
    },
  },
  {
    // File and folder names: kebab-case everywhere (tests keep their `.test` suffix), except React components of
    // the features (PascalCase .tsx) and the features' hooks (useCamelCase.ts).
    files: ['**/*.{ts,tsx,mjs}'],
    plugins: { 'check-file': checkFile },
    rules: {
      'check-file/filename-naming-convention': [
        'error',
        {
          'src/features/**/*.tsx': 'PASCAL_CASE',
          'src/features/**/use*.ts': 'CAMEL_CASE',
          '!(src)/**/*.{ts,tsx,mjs}': 'KEBAB_CASE',
          'src/!(features)/**/*.{ts,tsx}': 'KEBAB_CASE',
          'src/features/**/!(use)*.ts': 'KEBAB_CASE',
        },
        { ignoreMiddleExtensions: true },
      ],
      'check-file/folder-naming-convention': ['error', { '**/': 'KEBAB_CASE' }],
    },
  },
  {
    // Node scripts and configs outside the TypeScript project.
    files: ['eslint.config.js', 'knip.config.ts'],
    rules: { 'import-x/no-restricted-paths': 'off' },
  },
);
