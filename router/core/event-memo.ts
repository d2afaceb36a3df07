/**
 * What the router works out once per event object and keeps beside it for as long as someone holds the event:
 * its JSON and size (event-bytes.ts) and each dialect's rendering of it (router/rpc/stream-render.ts).
 *
 * Kept on the event itself, not in WeakMaps keyed by it: a relayed event lives a few milliseconds, and WeakMap
 * entries (ephemerons) with young keys outlived V8's scavenges. In a standalone loop two entries per event cost
 * ~1.5 us an event and left 39 MB after each scavenge instead of 8; at the relay, router CPU per event fell from
 * 14.6 to 13.9 us without them (docs/benchmarks.md, tenth pass).
 *
 * It is a private field that `MemoSlot` puts on the event (a base constructor that returns another object makes
 * that object the derived class's `this`, so its field initializer adds the field to the event itself; the event
 * stays a plain object with its own prototype). A private field is seen by nothing else: not JSON.stringify,
 * object spread, Object.keys or getOwnPropertySymbols, structuredClone, nor deep equality, so a copy of an event
 * never carries its original's JSON. It was a non-enumerable symbol property added by Object.defineProperty,
 * a call into the runtime that was ~3.5% of the relay's main thread; the field is added by an inline cache
 * (~30 against ~140-250 ns an event, fifteenth pass).
 */

/** Makes the object handed to its constructor the `this` of a derived class (see MemoSlot). */
class Host {
  constructor(target: object) {
    // biome-ignore lint/correctness/noConstructorReturn: the point: the derived class's field goes on `target`.
    return target;
  }
}

/** The memo's slot: `new MemoSlot(event, memo)` adds it to `event`, which must be extensible. */
class MemoSlot extends Host {
  #memo: EventMemo;

  constructor(target: object, memo: EventMemo) {
    super(target);
    this.#memo = memo;
  }

  static peek(event: object): EventMemo | undefined {
    return #memo in event ? (event as MemoSlot).#memo : undefined;
  }
}

/** What is memoized for one event object. */
export interface EventMemo {
  /** The event's JSON, while kept (event-bytes.ts lets a large one go once stored). */
  json: string | undefined;
  /** The JSON's length when the JSON itself is not kept. */
  bytes: number | undefined;
  /** The first rendering asked for, and whose (nearly every event is rendered for one dialect only). */
  formKey: string | undefined;
  form: string | Buffer | undefined;
  /** Renderings for further keys. */
  more: Map<string, string | Buffer> | undefined;
}

/**
 * The event's memo, made on first use. An event that cannot take a property (frozen, sealed) gets a fresh memo
 * every time: correct, only not memoized.
 */
export function memoOf(event: object): EventMemo {
  let memo = MemoSlot.peek(event);
  if (memo === undefined) {
    memo = { json: undefined, bytes: undefined, formKey: undefined, form: undefined, more: undefined };
    if (Object.isExtensible(event)) new MemoSlot(event, memo);
  }
  return memo;
}

/** The event's memo if it has one (nothing is made). */
export function peekMemo(event: object): EventMemo | undefined {
  return MemoSlot.peek(event);
}

/** The rendering of `event` memoized under `key`, if any. */
export function memoForm(event: object, key: string): string | Buffer | undefined {
  const memo = peekMemo(event);
  if (memo === undefined) return undefined;
  return memo.formKey === key ? memo.form : memo.more?.get(key);
}

/** Memoizes a rendering of `event` under `key`. */
export function setMemoForm(event: object, key: string, form: string | Buffer): void {
  const memo = memoOf(event);
  if (memo.formKey === undefined || memo.formKey === key) {
    memo.formKey = key;
    memo.form = form;
  } else {
    (memo.more ??= new Map()).set(key, form);
  }
}
