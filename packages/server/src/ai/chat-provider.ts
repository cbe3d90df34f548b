import { type AiUsage, TrellisError } from '@trelliscms/core';
import type { Config } from '../config';
import type { GuardedFetch } from '../shared/outbound/guarded-fetch';

/** A part of a user message: text, or an image the model is shown (a URL or a `data:` URL). */
export type ChatContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string } };

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string | ChatContentPart[];
}

/** One completion: the text the model answered, the model that answered and the tokens it used. */
export interface ChatCompletion {
  content: string;
  model: string;
  usage: AiUsage;
}

export interface ChatProvider {
  /** The configured model (the answer names the one that answered). */
  model: string;
  complete(
    messages: ChatMessage[],
    options?: { maxTokens?: number; temperature?: number; json?: boolean },
  ): Promise<ChatCompletion>;
}

export interface OpenAiChatOptions {
  /** The chat completions endpoint (`…/v1/chat/completions`), or its base URL (`…/v1`). */
  url: string;
  model: string;
  apiKey?: string;
  /** Per request. */
  timeoutMs: number;
  /** The server's guarded fetcher; the endpoint's origin is trusted (the operator configured it), redirects are checked. */
  fetch: GuardedFetch;
}

/** The endpoint URL: `url` itself when it ends in `/chat/completions`, else `url` + `/chat/completions`. */
export function chatCompletionsEndpoint(url: string): string {
  const trimmed = url.replace(/\/+$/, '');
  return trimmed.endsWith('/chat/completions') ? trimmed : `${trimmed}/chat/completions`;
}

const failed = (detail: string) => TrellisError.of('ai_provider_failed', { detail });

/** The provider's own message of a failed answer: OpenAI's `{error: {message}}`, or the start of its text. */
function providerMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof body.error === 'string' ? body.error : (body.error?.message ?? body.message);
    if (typeof message === 'string' && message !== '') return message.slice(0, 500);
  } catch {
    // not JSON
  }
  return text.trim().slice(0, 300);
}

const count = (value: unknown): number =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.round(value) : 0;

/**
 * A chat provider that calls an OpenAI-compatible chat completions API:
 * `POST {model, messages, max_tokens, temperature[, response_format]}` with a bearer key,
 * answered by `{model, choices: [{message: {content}}], usage}`. Every failure — unreachable,
 * timed out, an error status (with the provider's message), an answer without content — is a
 * 502 `ai_provider_failed`.
 */
export function createOpenAiChatProvider(options: OpenAiChatOptions): ChatProvider {
  const endpoint = chatCompletionsEndpoint(options.url);
  const trustedOrigins = [new URL(endpoint).origin];
  return {
    model: options.model,
    async complete(messages, { maxTokens = 800, temperature = 0.3, json = false } = {}) {
      let response: Response;
      try {
        response = await options.fetch(endpoint, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json',
            ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
          },
          body: JSON.stringify({
            model: options.model,
            messages,
            max_tokens: maxTokens,
            temperature,
            ...(json ? { response_format: { type: 'json_object' } } : {}),
          }),
          signal: AbortSignal.timeout(options.timeoutMs),
          trustedOrigins,
        });
      } catch (error) {
        const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
        throw failed(`${endpoint} is unreachable (${cause})`);
      }
      const text = await response.text().catch(() => '');
      if (!response.ok) {
        const message = providerMessage(text);
        throw failed(`${endpoint} answered ${response.status}${message ? `: ${message}` : ''}`);
      }
      let body: {
        model?: unknown;
        choices?: Array<{ message?: { content?: unknown; refusal?: unknown } }>;
        usage?: { prompt_tokens?: unknown; completion_tokens?: unknown; total_tokens?: unknown };
      };
      try {
        body = JSON.parse(text);
      } catch {
        throw failed(`${endpoint} answered no JSON`);
      }
      const message = Array.isArray(body?.choices) ? body.choices[0]?.message : undefined;
      if (typeof message?.refusal === 'string' && message.refusal !== '') {
        throw failed(`the model refused: ${message.refusal.slice(0, 300)}`);
      }
      const content = message?.content;
      if (typeof content !== 'string' || content.trim() === '') {
        throw failed(`${endpoint} answered no message content`);
      }
      const prompt = count(body.usage?.prompt_tokens);
      const completion = count(body.usage?.completion_tokens);
      return {
        content,
        model: typeof body.model === 'string' && body.model !== '' ? body.model : options.model,
        usage: { prompt, completion, total: count(body.usage?.total_tokens) || prompt + completion },
      };
    },
  };
}

/** The provider the configuration names (AI_URL, AI_MODEL, AI_API_KEY), or null when AI_URL is unset. */
export function createChatProvider(
  config: Pick<Config, 'AI_URL' | 'AI_MODEL' | 'AI_API_KEY' | 'AI_TIMEOUT_MS'>,
  fetch: GuardedFetch,
): ChatProvider | null {
  if (!config.AI_URL) return null;
  return createOpenAiChatProvider({
    url: config.AI_URL,
    model: config.AI_MODEL,
    apiKey: config.AI_API_KEY,
    timeoutMs: config.AI_TIMEOUT_MS,
    fetch,
  });
}
