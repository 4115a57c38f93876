// JSON values built in JavaScript objects.

/** Sets `key` of `object` as data, and returns `object`: a key named `__proto__` is a key, never the prototype
 * (assignment would set the prototype instead). */
export function put(object, key, value) {
  if (key === "__proto__") {
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  } else object[key] = value;
  return object;
}
