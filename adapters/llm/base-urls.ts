/** The remote providers' default base URLs (read by create.ts and providers.ts). */

/** Default base URL of the `openai` provider. */
export const OPENAI_BASE_URL = 'https://api.openai.com/v1';
/** Default base URL of the `anthropic` provider. */
export const ANTHROPIC_BASE_URL = 'https://api.anthropic.com/v1';
