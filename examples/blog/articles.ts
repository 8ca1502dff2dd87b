// An example of user code: the blog's articles kept in a Map standing in for a real database.
// It is type-checked against the generated blog code by the test suite (test/golden-server.test.ts).
import type { ArticlesHandlers, StoredArticle } from "../../fixtures/valid/blog/expected/index.gen.js";

/** A table: rows by id, as a database would keep them. */
const table = new Map<number, StoredArticle>();
let lastId = 0;

/** The articles handlers over the table; the generated server does guards, validation, links and transitions. */
export const articles: ArticlesHandlers = {
  listArticles: ({ query }) =>
    [...table.values()].filter(
      (row) =>
        (query.published === undefined || row.published === query.published) &&
        (query.authorId === undefined || row.authorId === query.authorId) &&
        (query.status === undefined || row.status === query.status),
    ),
  getArticle: ({ id }) => table.get(id),
  createArticle: ({ body, principal }) => {
    // The server already set the initial status and applied defaults; `principal` is the verified caller.
    const row: StoredArticle = { ...body, id: ++lastId, status: body.status ?? "draft" };
    console.log(`${principal.subject} created article ${row.id}`);
    table.set(row.id, row);
    return row;
  },
  replaceArticle: ({ id, body, current }) => {
    const row: StoredArticle = { ...body, id, status: body.status ?? current.status };
    table.set(id, row);
    return row;
  },
  updateArticle: ({ id, patch, current }) => {
    const row: { [field: string]: unknown } = { ...current };
    // JSON merge patch: null clears a field.
    for (const [field, value] of Object.entries(patch)) {
      if (value === null) delete row[field];
      else row[field] = value;
    }
    const updated = row as StoredArticle;
    table.set(id, updated);
    return updated;
  },
  deleteArticle: ({ id }) => {
    table.delete(id);
  },
};

