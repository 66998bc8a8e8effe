export { TELEGRAM_API_BASE_URL, telegramSender } from './telegram-client.ts';
export { WHATSAPP_API_BASE_URL, whatsappSender } from './whatsapp-client.ts';
