export { ChatSession, INTERACTIVE_ENDPOINT } from './chat-session.js';
export { runTerminalChat, type TerminalChatOptions } from './terminal-chat.js';
