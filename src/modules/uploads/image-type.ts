/**
 * The image type of a file, read from its first bytes (never from its name or the client's
 * Content-Type). SVG is not among them: it is a document that can carry scripts.
 */
export function detectImageType(data: Buffer): 'png' | 'jpg' | 'gif' | 'webp' | undefined {
  const ascii = (start: number, end: number): string => data.subarray(start, end).toString('latin1');
  // PNG: the 8-byte signature, then the IHDR chunk that must come first.
  if (
    data.length >= 24 &&
    data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) &&
    ascii(12, 16) === 'IHDR'
  ) {
    return 'png';
  }
  // JPEG: start-of-image marker followed by another marker.
  if (data.length >= 4 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'jpg';
  if (data.length >= 10 && (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a')) return 'gif';
  // WebP: a RIFF container whose form type is WEBP.
  if (data.length >= 16 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP' && ascii(12, 15) === 'VP8') return 'webp';
  return undefined;
}
