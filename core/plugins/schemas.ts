/** Bodies of the plugin management routes (the HTTP adapter runs them; 400 names the field). */
import * as v from 'valibot';

/** Body of `POST /api/v1/plugins/install`. */
export const InstallPluginBody = v.strictObject({
  id: v.pipe(v.string('id must be a string.'), v.minLength(1, 'id must not be empty.')),
  config: v.optional(v.record(v.string(), v.unknown(), 'config must be a JSON object.')),
  enabled: v.optional(v.boolean('enabled must be true or false.')),
});

/** Body of `POST /api/v1/plugins/:id/toggle`; an empty body flips the state. */
export const TogglePluginBody = v.strictObject({
  enabled: v.optional(v.boolean('enabled must be true or false.')),
});

/** Body of `PUT /api/v1/plugins/:id/config`: the whole config object. */
export const PluginConfigBody = v.record(v.string(), v.unknown(), 'The config must be a JSON object.');
