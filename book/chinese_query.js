/* The Chinese book's query splitter (book_extras puts it into language_data.js). A Chinese query has
 * no spaces: a run of Han characters is split into the longest words the search index knows, so
 * 幂等的工具 searches 幂等 and 工具. A run that is itself a word, or holds no known word, stays whole
 * (as Sphinx keeps it, for its partial matches); the rest splits as Sphinx splits it. */
function splitQuery(query) {
  const index = (typeof Search !== "undefined" && Search._index) || {};
  const known = (word) =>
    Boolean((index.terms && index.terms[word]) || (index.titleterms && index.titleterms[word]));
  const longest = (run, start) => {
    for (let end = Math.min(run.length, start + 8); end > start + 1; end--) {
      if (known(run.slice(start, end))) return end;
    }
    return start;
  };
  const words = [];
  const parts = query.split(/[^\p{Letter}\p{Number}_\p{Emoji_Presentation}]+/gu);
  for (const part of parts.filter((p) => p)) {
    for (const run of part.match(/\p{Script=Han}+|[^\p{Script=Han}]+/gu)) {
      const han = /\p{Script=Han}/u.test(run);
      const pieces = [];
      for (let start = 0; han && !known(run) && start < run.length; ) {
        const end = longest(run, start);
        if (end > start) pieces.push(run.slice(start, end));
        start = Math.max(end, start + 1);
      }
      words.push(...(pieces.length ? pieces : [run]));
    }
  }
  return words;
}
