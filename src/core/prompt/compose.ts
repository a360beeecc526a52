/**
 * The system prompt a model call is sent, composed from the agent's base `system` text and its layers:
 * the stable part (base text, then stable layers) first and ending in the prompt-cache breakpoint, then
 * the dynamic layers, so a changed dynamic layer leaves the cached prefix intact.
 */
import type { SystemPart } from '../output/native-output';
import type { LayerInput } from './layers';

/** How one layer reads in the prompt: its text between tags named after it. */
export function renderLayer(name: string, value: string): string {
  return `<${name}>\n${value}\n</${name}>`;
}

/**
 * The system text and its parts for a call: `{}` when the agent declares no layers (the base text is sent
 * as it is). `computed` holds the values functions returned for this call (they replace the recorded ones).
 */
export function composeSystem(
  base: string | undefined,
  layers: readonly LayerInput[] | undefined,
  computed: Readonly<Record<string, string | null>> = {},
): { system?: string; systemParts?: SystemPart[] } {
  if (!layers?.length) return {};
  const valueOf = (l: LayerInput): string | undefined => (l.name in computed ? (computed[l.name] ?? undefined) : l.value);
  const rendered = (stable: boolean) =>
    layers.flatMap((l) => {
      const v = l.stable === stable ? valueOf(l) : undefined;
      return v ? [renderLayer(l.name, v)] : [];
    });
  const stable = [...(base ? [base] : []), ...rendered(true)].join('\n\n');
  const dynamic = rendered(false).join('\n\n');
  const parts: SystemPart[] = [
    ...(stable ? [{ text: stable, cacheBreakpoint: true as const }] : []),
    ...(dynamic ? [{ text: dynamic }] : []),
  ];
  if (parts.length === 0) return {};
  return { system: parts.map((p) => p.text).join('\n\n'), systemParts: parts };
}
