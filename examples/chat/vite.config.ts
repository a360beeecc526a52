import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// `vite build` writes the page into dist/, which server.ts serves beside the chat API.
export default defineConfig({ plugins: [react()] });
