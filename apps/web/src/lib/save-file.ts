/**
 * Hands a downloaded file to the browser as a download named `filename`. The file was fetched with the session's
 * bearer token (a plain link could not send it), so it is saved from a Blob URL, revoked once the click took it.
 */
export const saveFile = (file: Blob, filename: string): void => {
  const url = URL.createObjectURL(file);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.rel = 'noopener';
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked on the next task: the click starts the download from the URL first.
  setTimeout(() => {
    URL.revokeObjectURL(url);
  }, 0);
};

/** A file name's part from free text (a job's name): letters and digits of any script, the rest as single dashes. */
export const fileNamePart = (text: string): string =>
  text
    .normalize('NFC')
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60) || 'report';
