// Which build of the site this code belongs to. site_builder/versioning.py
// stamps every reference between the site's files with ?v=<build id>, so a
// module reads its build from its own URL and adds it to the URLs it composes
// at run time (a widget's module, a table, the lab's models): a page then only
// ever loads files of its own build. In an unbuilt tree (web/ loaded directly,
// or from Node in the tests) there is no id and URLs stay as they are.

export function buildOf(moduleUrl) {
  try {
    return new URL(moduleUrl).searchParams.get('v');
  } catch {
    return null;
  }
}

export const BUILD = buildOf(import.meta.url);

// url (a URL or string, absolute or relative to base) with this build's ?v=.
export function versioned(url, base = undefined, build = BUILD) {
  const u = new URL(url, base);
  if (build) u.searchParams.set('v', build);
  return u;
}
