/**
 * The fixed table of attachment types, by extension. A file's bytes are never sniffed: an unknown
 * extension is `application/octet-stream`.
 */
const TYPES: Readonly<Record<string, string>> = {
  // images
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  bmp: 'image/bmp',
  ico: 'image/x-icon',
  svg: 'image/svg+xml',
  // documents
  pdf: 'application/pdf',
  txt: 'text/plain; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  json: 'application/json',
  canvas: 'application/json',
  html: 'text/html; charset=utf-8',
  htm: 'text/html; charset=utf-8',
  xhtml: 'application/xhtml+xml',
  xml: 'application/xml',
  zip: 'application/zip',
  // audio
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  m4a: 'audio/mp4',
  ogg: 'audio/ogg',
  oga: 'audio/ogg',
  flac: 'audio/flac',
  webm: 'video/webm',
  '3gp': 'audio/3gpp',
  // video
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  mov: 'video/quicktime',
  mkv: 'video/x-matroska',
  ogv: 'video/ogg',
};

/** The extension of a path, lower-cased, without the dot (`''` when none). */
export function extensionOf(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot + 1).toLowerCase();
}

/** True when the path's extension is in the table (a link to it is taken for a file link). */
export function isKnownFileType(path: string): boolean {
  return Object.hasOwn(TYPES, extensionOf(path));
}

/** The `Content-Type` of an attachment, from its extension only. */
export function contentTypeOf(path: string): string {
  return TYPES[extensionOf(path)] ?? 'application/octet-stream';
}

/**
 * Types a browser would run script in when opened directly (HTML, XHTML, XML, SVG). They are
 * served under a sandboxing CSP; all but SVG also as a download (`Content-Disposition: attachment`).
 */
export function isScriptCapable(contentType: string): boolean {
  return /^(text\/html|application\/xhtml\+xml|application\/xml|text\/xml|image\/svg\+xml)\b/.test(
    contentType,
  );
}

/** Image types the workspace shows inline. */
export function isImageType(contentType: string): boolean {
  return contentType.startsWith('image/');
}
