// The version string, replaced at build time from package.json.
declare const __CORDON_VERSION__: string | undefined;
export const VERSION: string = typeof __CORDON_VERSION__ === 'string' ? __CORDON_VERSION__ : '0.1.0-dev';
