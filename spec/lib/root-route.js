// `@rootRoute("/health")`: an operation of the public service at the server's root instead of
// under the namespace's `/api/v1` (TypeSpec routes always append to their parents'). Used only by
// the unauthenticated probes in health.tsp.
// The route producer hook is TypeSpec's documented experimental API (`unsafe_` prefixed).
import {
  unsafe_DefaultRouteProducer as DefaultRouteProducer,
  unsafe_setRouteProducer as setRouteProducer,
} from "@typespec/http/experimental";

export const $decorators = {
  PixService: {
    rootRoute(context, target, path) {
      setRouteProducer(context.program, target, (program, operation, _parentSegments, overloadBase, options) =>
        DefaultRouteProducer(program, operation, [path], overloadBase, options),
      );
    },
  },
};
