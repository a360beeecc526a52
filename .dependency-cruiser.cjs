/**
 * Which layer may import which: checked by `npm run lint` (`depcruise`), so `npm test` fails on a
 * forbidden import or an import cycle. ARCHITECTURE.md shows the same table.
 *
 *   layer (folder)                    may import
 *   --------------------------------  ---------------------------------------------------------------
 *   src/core/**                       src/core; of packages @temporalio/workflow, @temporalio/common; no Node builtins
 *   src/agents                        src/core (+ the pure MCP declarations and context-window table *)
 *   src/workflows                     src/core, workflow-safe telemetry (telemetry/workflow-*.ts, gen-ai.ts),
 *                                     agents/budget-options; anything else type-only; no Node builtins
 *   src/activities                    src/core, src/agents, src/integrations
 *   src/integrations/<name>           src/core, its own folder, other integrations' types
 *                                     (+ mcp: src/agents; + activities/client helpers *)
 *   src/client                        src/core, src/agents, src/integrations; of src/workflows the pure
 *                                     names (definitions.ts, search-attributes.ts, run-input.ts), the rest type-only
 *   src/browser                       src/core/chat only; of packages only `ai`, type-only; no Node builtins
 *                                     (it runs in the browser: fetch and streams)
 *   src/worker                        all of src/ but src/entry
 *   src/entry                         all of src/ (the package's entry points)
 *   apps/**                           of src/ only src/entry (products are built on the public API;
 *                                     the console, a browser bundle, takes 2 values from pure modules *);
 *                                     apps/cli also apps/http and apps/console; the other apps stand alone
 *   src/**                            never apps/, scripts/, test/, bench/, examples/
 *   everything                        no import cycle (type imports count)
 *
 *   (*) exceptions, each with its reason, are the `pathNot` entries marked "exception" below.
 */

/** A package from node_modules (also through a symlinked node_modules). */
const NPM = '(^|/)node_modules/';
const WORKFLOW_SAFE_TELEMETRY = '^src/integrations/telemetry/(workflow-[^/]+|gen-ai)\\.ts$';

/** Forbid `from` importing any module of this repository but `allowed` (npm packages and Node builtins have their own rules). */
function layer(name, comment, from, allowed, extra = {}) {
  return {
    name,
    comment,
    severity: 'error',
    from: { path: from, ...(extra.fromPathNot ? { pathNot: extra.fromPathNot } : {}) },
    to: {
      pathNot: [...allowed, NPM],
      // Node builtins are judged by `no-node-builtins-in-workflow-code`, npm packages of core by `core-npm`.
      dependencyTypesNot: [...(extra.typeOnlyAllowed ? ['type-only'] : []), 'core'],
    },
  };
}

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Import cycles make load order matter and layers meaningless (type imports count, as in test/unit/acyclic.test.ts).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that resolves to nothing: a typo, or a package missing from package.json.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'no-node-builtins-in-workflow-code',
      comment: "Core and workflow code run in Temporal's deterministic sandbox: no Node modules.",
      severity: 'error',
      from: { path: ['^src/core/', '^src/workflows/', WORKFLOW_SAFE_TELEMETRY] },
      to: { dependencyTypes: ['core'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'core-npm',
      comment: 'src/core is pure: of packages only the workflow-safe parts of Temporal (@temporalio/workflow, @temporalio/common).',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: NPM, pathNot: `${NPM}@temporalio/(workflow|common)/` },
    },
    layer('core', 'src/core imports only src/core.', '^src/core/', ['^src/core/']),
    layer('agents', 'src/agents (definitions) imports only src/core.', '^src/agents/', [
      '^src/core/',
      '^src/agents/',
      // exception: MCP server declarations are part of an agent's definition (pure data and checks, no MCP SDK).
      '^src/integrations/mcp/server\\.ts$',
      // exception: the registry reads an agent's context window from this pure table (no provider SDK).
      '^src/integrations/providers/(context-windows|model-table)\\.ts$',
    ]),
    layer(
      'workflows',
      'src/workflows (the Temporal sandbox) imports src/core, the workflow-safe telemetry modules and agents/budget-options; other modules only type-only.',
      '^src/workflows/',
      ['^src/core/', '^src/workflows/', WORKFLOW_SAFE_TELEMETRY, '^src/agents/budget-options\\.ts$'],
      { typeOnlyAllowed: true },
    ),
    layer('activities', 'src/activities imports src/core, src/agents and src/integrations.', '^src/activities/', [
      '^src/core/',
      '^src/agents/',
      '^src/activities/',
      '^src/integrations/',
      // Activities are named by the workflow's contract: type-only use of the workflow's declarations.
    ]),
    layer(
      'integrations',
      'src/integrations/<name> imports src/core and src/integrations.',
      '^src/integrations/([^/]+)/',
      ['^src/core/', '^src/integrations/'],
      {
        fromPathNot: '^src/integrations/(mcp|telemetry|streaming)/',
      },
    ),
    {
      name: 'integrations-apart',
      comment: "An integration uses another's types only (e.g. the store's BlobCipher), so each loads without the others.",
      severity: 'error',
      from: { path: '^src/integrations/([^/]+)/' },
      // exception: every integration loads its package through the one optional-peer loader (one missing-package error).
      to: { path: '^src/integrations/', pathNot: '^src/integrations/($1/|optional-peer\\.ts$)', dependencyTypesNot: ['type-only'] },
    },
    layer(
      'integrations-mcp',
      'src/integrations/mcp turns MCP tools into agent tools: src/core, src/agents, its own folder.',
      '^src/integrations/mcp/',
      [
        '^src/core/',
        '^src/integrations/',
        '^src/agents/',
        // exception: the MCP activity heartbeats like every other activity (activities/heartbeat's keepAlive).
        '^src/activities/heartbeat\\.ts$',
      ],
    ),
    layer('integrations-telemetry', 'src/integrations/telemetry imports src/core and its own folder.', '^src/integrations/telemetry/', [
      '^src/core/',
      '^src/integrations/',
      // exception: a model call's span records the messages the model was shown, read as the activity reads them.
      '^src/activities/model\\.ts$',
    ]),
    layer('integrations-streaming', 'src/integrations/streaming imports src/core and its own folder.', '^src/integrations/streaming/', [
      '^src/core/',
      '^src/integrations/',
      // exception: delta feeds are read by clients and wait with the client's abortable sleep (client/abortable, no Temporal).
      '^src/client/abortable\\.ts$',
    ]),
    layer('browser', 'src/browser runs in the browser: it imports src/core/chat (pure types and helpers) only.', '^src/browser/', [
      '^src/core/chat/',
      '^src/browser/',
    ]),
    {
      name: 'browser-npm',
      comment: 'src/browser runs in the browser: no Node builtins, no package at run time (the AI SDK only for its types).',
      severity: 'error',
      from: { path: '^src/browser/' },
      to: { dependencyTypesNot: ['type-only'], path: NPM },
    },
    {
      name: 'browser-node-builtins',
      comment: 'src/browser runs in the browser: no Node modules.',
      severity: 'error',
      from: { path: '^src/browser/' },
      to: { dependencyTypes: ['core'] },
    },
    layer('client', "src/client imports src/core, src/agents, src/integrations and the workflows' pure names.", '^src/client/', [
      '^src/core/',
      '^src/client/',
      '^src/agents/',
      '^src/integrations/',
      '^src/workflows/',
    ]),
    {
      name: 'client-workflows',
      comment:
        "src/client uses the workflow functions as types only (typed handles): loading them would load the sandbox's code. The definitions modules (signals, updates, queries: define* only) are values it needs.",
      severity: 'error',
      from: { path: '^src/client/' },
      to: {
        path: '^src/workflows/',
        pathNot: '^src/workflows/(definitions|rules-definitions|search-attributes|run-input)\\.ts$',
        dependencyTypesNot: ['type-only'],
      },
    },
    layer('worker', 'src/worker imports all of src/ but the entry points.', '^src/worker/', ['^src/(?!entry/)']),
    layer('entry', 'src/entry (the package entry points) imports src/.', '^src/entry/', ['^src/']),
    {
      name: 'src-not-to-products-or-tooling',
      comment: 'The library never imports the products (apps/) or the tooling (scripts/, test/, bench/, examples/).',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(apps|scripts|test|bench|examples)/' },
    },
    {
      name: 'apps-use-public-api',
      comment: 'Products are built on the public API: apps/ imports the library only through src/entry/* (the package entry points).',
      severity: 'error',
      from: { path: '^apps/', pathNot: '^apps/console/' },
      // exception: the CLI loads its own optional packages (ora, tsx) through the library's loader, so a missing
      // one gives the same one-line error as a missing SDK (src/integrations/optional-peer.ts, pure Node).
      to: { path: '^src/', pathNot: '^src/(entry/|integrations/optional-peer\\.ts$)' },
    },
    // exception: the web console is a browser bundle (esbuild); an entry point would bundle Temporal and Node code
    // into it, so its two values come from their pure modules (RUN_STATUSES, TextAccumulator); its types from src/entry.
    {
      name: 'console-values',
      comment: 'The web console imports values only from the pure, browser-safe modules core/run/result.ts and client/live.ts.',
      severity: 'error',
      from: { path: '^apps/console/' },
      to: { path: '^src/', pathNot: ['^src/entry/', '^src/core/run/result\\.ts$', '^src/client/live\\.ts$'] },
    },
    {
      name: 'console-types',
      comment: "The web console's types come from src/entry/* (the public API), like every product's.",
      severity: 'error',
      from: { path: '^apps/console/' },
      to: { path: '^src/', pathNot: '^src/entry/', dependencyTypes: ['type-only'] },
    },
    {
      name: 'apps-apart',
      comment: 'Each product stands alone; only the CLI hosts the others (the HTTP API and the console build output).',
      severity: 'error',
      from: { path: '^apps/([^/]+)/', pathNot: '^apps/cli/' },
      to: { path: '^apps/', pathNot: '^apps/$1/' },
    },
  ],
  options: {
    doNotFollow: { path: NPM },
    exclude: { path: ['(^|/)dist/', '\\.d\\.ts$'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['require', 'node', 'import', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.cjs', '.mjs', '.json'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
