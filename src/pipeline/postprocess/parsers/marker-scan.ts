// Finding markers in streamed text: where the first complete marker is, and how much of the text's
// end could still grow into one (that much must be held until the next text settles it).

export interface MarkerHit {
  marker: string;
  index: number;
}

/** The earliest complete marker in `text` (the longest one when two start at the same place). */
export function firstMarker(text: string, markers: readonly string[]): MarkerHit | null {
  let best: MarkerHit | null = null;
  for (const marker of markers) {
    const index = text.indexOf(marker);
    if (index < 0) continue;
    if (best === null || index < best.index || (index === best.index && marker.length > best.marker.length)) {
      best = { marker, index };
    }
  }
  return best;
}

/** Length of the longest suffix of `text` that is a proper prefix of one of `markers`. */
export function partialMarkerLength(text: string, markers: readonly string[]): number {
  let held = 0;
  for (const marker of markers) {
    for (let k = Math.min(marker.length - 1, text.length); k > held; k--) {
      if (endsWithStartOf(text, marker, k)) {
        held = k;
        break;
      }
    }
  }
  return held;
}

/** `text` ends with the first `k` characters of `marker` (compared in place: this runs per token). */
function endsWithStartOf(text: string, marker: string, k: number): boolean {
  const offset = text.length - k;
  for (let i = 0; i < k; i++) if (text.charCodeAt(offset + i) !== marker.charCodeAt(i)) return false;
  return true;
}

/**
 * `text` without a leading marker (unchanged when it starts with none), or null while `text` is
 * still a proper prefix of one and the next text decides.
 */
export function withoutLeadingMarker(text: string, markers: readonly string[]): string | null {
  const marker = markers.find((m) => text.startsWith(m));
  if (marker !== undefined) return text.slice(marker.length);
  return markers.some((m) => m.startsWith(text)) ? null : text;
}
