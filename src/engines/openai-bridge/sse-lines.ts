// The `data:` payloads of a server-sent event stream, as the OpenAI-compatible servers write them
// (vLLM, SGLang, llama.cpp, Ollama): one JSON object per event, `[DONE]` at the end.

/** Yields each event's data (its `data:` lines joined), stopping at `[DONE]`. */
export async function* sseData(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let eol: number;
    while ((eol = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, eol).replace(/\r$/, '');
      buffer = buffer.slice(eol + 1);
      if (line === '') {
        if (data.length > 0) {
          const event = data.join('\n');
          data = [];
          if (event === '[DONE]') return;
          yield event;
        }
      } else if (line.startsWith('data:')) {
        data.push(line.slice(line.charAt(5) === ' ' ? 6 : 5));
      }
    }
  }
  // A last event the server did not terminate.
  const last = (buffer + decoder.decode()).replace(/\r$/, '');
  if (last.startsWith('data:')) data.push(last.slice(last.charAt(5) === ' ' ? 6 : 5));
  const tail = data.join('\n');
  if (tail !== '' && tail !== '[DONE]') yield tail;
}
