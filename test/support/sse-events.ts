// Reading a named-event SSE body (Responses, Anthropic Messages) in tests.

/** The `event:` frames of an SSE body, in order, with their parsed data. */
export function sseEvents(body: string): { event: string; data: Record<string, unknown> }[] {
  return body
    .split('\n\n')
    .filter((frame) => frame.startsWith('event: '))
    .map((frame) => {
      const [eventLine, dataLine] = frame.split('\n');
      return { event: eventLine!.slice('event: '.length), data: JSON.parse(dataLine!.slice('data: '.length)) as Record<string, unknown> };
    });
}
