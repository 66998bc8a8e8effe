/** A path that is not taken: `path` itself, or `name (restored).md`, `name (restored 2).md`, ... */
export async function freePath(path: string, taken: (p: string) => Promise<boolean>): Promise<string> {
  if (!(await taken(path))) return path;
  const dot = path.lastIndexOf('.');
  const slash = path.lastIndexOf('/');
  const [stem, ext] = dot > slash ? [path.slice(0, dot), path.slice(dot)] : [path, ''];
  for (let n = 1; ; n++) {
    const candidate = `${stem} (restored${n === 1 ? '' : ` ${n}`})${ext}`;
    if (!(await taken(candidate))) return candidate;
  }
}
