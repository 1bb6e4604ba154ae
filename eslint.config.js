import js from '@eslint/js';
import drizzle from 'eslint-plugin-drizzle';
import tseslint from 'typescript-eslint';

/**
 * The layers of the service, from the ground up: each may import from itself and the layers
 * below it, never above (docs/architecture.md, "Layers"). Support and storage are both ground:
 * neither imports the other. A feature module (server/webhooks/) holds one folder per layer of
 * its own, under the same rules, and its `module.ts`, which the process wires in. A relative
 * import that names a higher layer's folder fails lint, type-only imports and dynamic
 * `import()` included.
 */
const MODULES = 'server/webhooks';
const LAYERS = [
  { name: 'support', files: ['server/support/**/*.ts'] },
  { name: 'storage', files: ['db/**/*.ts', `${MODULES}/storage/**/*.ts`], folder: 'db' },
  { name: 'domain', files: ['server/domain/**/*.ts', `${MODULES}/domain/**/*.ts`] },
  { name: 'operations', files: ['server/operations/**/*.ts', `${MODULES}/operations/**/*.ts`] },
  { name: 'surfaces', files: ['server/surfaces/**/*.ts', `${MODULES}/surfaces/**/*.ts`] },
  { name: 'process', files: ['server/process/**/*.ts', 'server/main.ts', `${MODULES}/module.ts`] },
];

/**
 * What a file of `layer` must not import: every layer above it, and for storage the service's
 * own code (server/, or a module's layers above storage, and support).
 */
function forbiddenFolders(index) {
  const above = LAYERS.slice(index + 1).map((layer) => layer.folder ?? layer.name);
  return LAYERS[index].name === 'storage' ? ['server', 'support', ...above] : above;
}

/** Below the surfaces nothing knows the transport: the domain's own errors, never tRPC's. */
const TRANSPORT = {
  group: ['@trpc/*'],
  message:
    'Only the surfaces and the process know tRPC: below them throw the domain errors (server/domain/errors.ts).',
};
const SURFACES = LAYERS.findIndex((layer) => layer.name === 'surfaces');

const layerRules = LAYERS.map((layer, index) => {
  const folders = forbiddenFolders(index);
  const message = `The ${layer.name} layer imports only from itself and the layers below it (docs/architecture.md).`;
  // esquery's regex literals cannot hold a slash, so the dynamic import's pattern names it \x2F.
  const upward = `^\\.{1,2}\\x2F(?:.*\\x2F)?(?:${folders.join('|')})\\x2F`;
  return {
    files: layer.files,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: `^\\.{1,2}/(?:.*/)?(?:${folders.join('|')})/`, message },
            ...(index < SURFACES ? [TRANSPORT] : []),
          ],
        },
      ],
      // `import()` is no import declaration: the rule above does not see it.
      'no-restricted-syntax': [
        'error',
        { selector: `ImportExpression > Literal[value=/${upward}/]`, message },
        {
          selector: `ImportExpression > TemplateLiteral > TemplateElement[value.raw=/${upward}/]`,
          message,
        },
      ],
    },
  };
});

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'drizzle/',
      'node_modules/',
      '.data/',
      'coverage/',
      'client/generated/',
      '.scratch/',
      'empty-database/',
      // A package of its own, linted by its own configuration (bench/eslint.config.js).
      'bench/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { drizzle },
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      'drizzle/enforce-delete-with-where': ['error', { drizzleObjectName: ['db', 'tx'] }],
      'drizzle/enforce-update-with-where': ['error', { drizzleObjectName: ['db', 'tx'] }],
    },
  },
  {
    files: ['server/**/*.ts', 'db/**/*.ts'],
    ignores: ['server/process/config.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Read configuration from server/process/config.ts.',
        },
      ],
    },
  },
  ...layerRules,
  // Plain JavaScript outside the TypeScript project: this file, module hooks Node loads
  // before any TypeScript loader, and what npm start runs before there is a build.
  {
    files: ['eslint.config.js', 'tests/helpers/module-recorder/*.mjs', 'scripts/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
