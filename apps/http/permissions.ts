/**
 * What a token may do: its permissions, and the rule that a caller acts (messages, cancellation) only on
 * the runs it started unless it holds `admin`. Pure: no I/O.
 */

/**
 * The permissions a token may hold:
 * - `read`: list runs, read a run, its events, its report and the approval inbox;
 * - `start`: start runs (`POST /runs`);
 * - `message`: send messages to the runs it started;
 * - `cancel`: cancel the runs it started;
 * - `decide`: decide approvals (the tool's approvers still apply);
 * - `waive`: start a run whose policy loosens an approval-gated tool;
 * - `rules`: change the standing approval rules (the identity must also be an editor of the rules entity);
 * - `metrics`: scrape `GET /metrics`;
 * - `admin`: everything, on every run (message and cancel runs others started, or nobody recorded).
 */
export const PERMISSIONS = ['read', 'start', 'message', 'cancel', 'decide', 'waive', 'rules', 'metrics', 'admin'] as const;

/** One of {@link PERMISSIONS}. */
export type Permission = (typeof PERMISSIONS)[number];

/** What a token entry holds when it lists no `permissions`: `decide` is added when it says `"approve": true`. */
export const DEFAULT_PERMISSIONS: readonly Permission[] = ['read', 'start', 'message', 'cancel'];

/** Is `value` a permission name? */
export function isPermission(value: unknown): value is Permission {
  return typeof value === 'string' && (PERMISSIONS as readonly string[]).includes(value);
}

/**
 * The permissions of a token entry: `permissions` as listed (else {@link DEFAULT_PERMISSIONS}), plus
 * `decide` when `approve` is true (the legacy spelling of `decide`). Sorted in {@link PERMISSIONS} order.
 */
export function permissionsOf(entry: { permissions?: readonly Permission[] | undefined; approve?: boolean | undefined }): Permission[] {
  const held = new Set<Permission>(entry.permissions ?? DEFAULT_PERMISSIONS);
  if (entry.approve) held.add('decide');
  return PERMISSIONS.filter((p) => held.has(p));
}

/** Someone who holds permissions. */
export interface PermissionHolder {
  identity: string;
  permissions: readonly Permission[];
}

/** Does `who` hold `permission` (directly, or through `admin`)? */
export function holds(who: PermissionHolder, permission: Permission): boolean {
  return who.permissions.includes(permission) || who.permissions.includes('admin');
}

/**
 * May `who` act on a run started by `startedBy` (undefined: not recorded)? Its own runs yes; others' and
 * unrecorded ones only with `admin`.
 */
export function mayActOnRun(who: PermissionHolder, startedBy: string | undefined): boolean {
  return holds(who, 'admin') || (startedBy !== undefined && startedBy === who.identity);
}
