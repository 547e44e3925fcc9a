import chromium from '@sparticuz/chromium';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The headless Chromium of @sparticuz/chromium, unpacked once per run (test files in parallel would race to unpack it). */
    chromiumPath: string;
  }
}

export default async function setup(project: TestProject) {
  project.provide('chromiumPath', await chromium.executablePath());
}
