/**
 * Event filters (controller-runtime pkg/predicate/predicate.go): a {@link Predicate} decides per event
 * whether it reaches the event handler. The builder's `withEventFilter` and `for`/`owns`/`watches`
 * options take them; they combine with {@link and}, {@link or} and {@link not}.
 */
import type { KubeObject } from '../apimachinery/object.ts';
import { labelSelectorAsSelector, parseSelector, LabelSelector } from '../apimachinery/labels.ts';
import type { LabelSelector as MetaLabelSelector } from '../api/meta/v1.ts';
import type { CreateEvent, DeleteEvent, GenericEvent, UpdateEvent } from './events.ts';

/**
 * Filters events (predicate.Predicate). A missing method lets that kind of event through, as
 * predicate.Funcs does.
 */
export interface Predicate<T extends KubeObject = KubeObject> {
  /** Names the predicate in reconcile causes and traces (kubeloom). Default 'predicate'. */
  readonly name?: string;
  /** Whether a create event passes. */
  create?(e: CreateEvent<T>): boolean;
  /** Whether an update event passes. */
  update?(e: UpdateEvent<T>): boolean;
  /** Whether a delete event passes. */
  delete?(e: DeleteEvent<T>): boolean;
  /** Whether a generic event passes. */
  generic?(e: GenericEvent<T>): boolean;
}

/** Runs `p`'s method for an event kind, true when `p` has none. */
export function allows<T extends KubeObject>(p: Predicate<T>, kind: 'create', e: CreateEvent<T>): boolean;
export function allows<T extends KubeObject>(p: Predicate<T>, kind: 'update', e: UpdateEvent<T>): boolean;
export function allows<T extends KubeObject>(p: Predicate<T>, kind: 'delete', e: DeleteEvent<T>): boolean;
export function allows<T extends KubeObject>(p: Predicate<T>, kind: 'generic', e: GenericEvent<T>): boolean;
export function allows<T extends KubeObject>(p: Predicate<T>, kind: 'create' | 'update' | 'delete' | 'generic', e: CreateEvent<T> | UpdateEvent<T> | DeleteEvent<T> | GenericEvent<T>): boolean {
  switch (kind) {
    case 'create':
      return p.create === undefined || p.create(e as CreateEvent<T>);
    case 'update':
      return p.update === undefined || p.update(e as UpdateEvent<T>);
    case 'delete':
      return p.delete === undefined || p.delete(e as DeleteEvent<T>);
    default:
      return p.generic === undefined || p.generic(e as GenericEvent<T>);
  }
}

/** A predicate applying `f` to the object of every event (the new one for updates) (predicate.NewPredicateFuncs). */
export function newPredicateFuncs<T extends KubeObject = KubeObject>(f: (obj: T) => boolean): Predicate<T> {
  return {
    create: (e) => f(e.object),
    update: (e) => f(e.objectNew),
    delete: (e) => f(e.object),
    generic: (e) => f(e.object),
  };
}

/**
 * Passes updates whose resourceVersion changed (predicate.ResourceVersionChangedPredicate): drops the
 * re-deliveries of a resync. Other events pass.
 */
export const resourceVersionChanged: Predicate = {
  name: 'ResourceVersionChangedPredicate',
  update: (e) => e.objectOld.metadata?.resourceVersion !== e.objectNew.metadata?.resourceVersion,
};

/**
 * Passes updates whose `metadata.generation` changed (predicate.GenerationChangedPredicate): spec
 * changes of resources that count generations, not status or metadata-only changes. Other events pass.
 */
export const generationChanged: Predicate = {
  name: 'GenerationChangedPredicate',
  update: (e) => e.objectOld.metadata?.generation !== e.objectNew.metadata?.generation,
};

function sameRecord(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const ka = Object.keys(a ?? {});
  const kb = Object.keys(b ?? {});
  if (ka.length !== kb.length) return false;
  for (const k of ka) if (a![k] !== b?.[k]) return false;
  return true;
}

/** Passes updates whose labels changed (predicate.LabelChangedPredicate). Other events pass. */
export const labelChanged: Predicate = {
  name: 'LabelChangedPredicate',
  update: (e) => !sameRecord(e.objectOld.metadata?.labels, e.objectNew.metadata?.labels),
};

/** Passes updates whose annotations changed (predicate.AnnotationChangedPredicate). Other events pass. */
export const annotationChanged: Predicate = {
  name: 'AnnotationChangedPredicate',
  update: (e) => !sameRecord(e.objectOld.metadata?.annotations, e.objectNew.metadata?.annotations),
};

/**
 * Passes events whose object's labels match `selector` (predicate.LabelSelectorPredicate); for updates,
 * the new object's.
 */
export function labelSelector(selector: MetaLabelSelector | LabelSelector | string): Predicate {
  const sel = selector instanceof LabelSelector ? selector : typeof selector === 'string' ? parseSelector(selector) : labelSelectorAsSelector(selector);
  return { ...newPredicateFuncs((obj) => sel.matches(obj.metadata?.labels)), name: `LabelSelectorPredicate(${sel.toString()})` };
}

/** Passes an event only if every predicate does (predicate.And); no predicates: everything passes. */
export function and<T extends KubeObject>(...predicates: Predicate<T>[]): Predicate<T> {
  return {
    create: (e) => predicates.every((p) => allows(p, 'create', e)),
    update: (e) => predicates.every((p) => allows(p, 'update', e)),
    delete: (e) => predicates.every((p) => allows(p, 'delete', e)),
    generic: (e) => predicates.every((p) => allows(p, 'generic', e)),
  };
}

/** Passes an event if any predicate does (predicate.Or); no predicates: nothing passes. */
export function or<T extends KubeObject>(...predicates: Predicate<T>[]): Predicate<T> {
  return {
    create: (e) => predicates.some((p) => allows(p, 'create', e)),
    update: (e) => predicates.some((p) => allows(p, 'update', e)),
    delete: (e) => predicates.some((p) => allows(p, 'delete', e)),
    generic: (e) => predicates.some((p) => allows(p, 'generic', e)),
  };
}

/** Inverts a predicate (predicate.Not); a method `p` lacks (which passes) becomes one that blocks. */
export function not<T extends KubeObject>(p: Predicate<T>): Predicate<T> {
  return {
    create: (e) => !allows(p, 'create', e),
    update: (e) => !allows(p, 'update', e),
    delete: (e) => !allows(p, 'delete', e),
    generic: (e) => !allows(p, 'generic', e),
  };
}
