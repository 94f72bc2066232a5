import { SerializerSelector, type SerializerCompiler, type SerializerFactory } from '@fastify/fast-json-stringify-compiler';

const buildSerializer = SerializerSelector();

/**
 * Fastify's own response serializers (fast-json-stringify), each built the first time its route
 * answers with its status instead of when the route is registered. Building every route's
 * serializers, and AJV's validators (validation.ts does the same), took about 1.2 s of the 2.7 s
 * of CPU a start spent before its first answer (docs/benchmarks.md, "Start-up"); most routes of
 * a process are never called, and a first call pays a few milliseconds. A schema that cannot be
 * built fails its route's first answer rather than the start: the route fuzz test
 * (test/security/route-fuzz.test.ts) answers every route, so CI still meets it.
 */
export const lazySerializerFactory: SerializerFactory = (externalSchemas, options): SerializerCompiler => {
  const compilerOf = buildSerializer(externalSchemas, options);
  return (route) => {
    let serialize: ((data: unknown) => string) | undefined;
    return (data: unknown) => (serialize ??= compilerOf(route))(data);
  };
};
