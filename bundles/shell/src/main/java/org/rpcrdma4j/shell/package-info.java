/**
 * The {@code rpcrdma:*} commands of the Karaf console: {@code transports}, {@code connections},
 * {@code strategy} and {@code bench}. Karaf's command extender finds the {@code @Service}
 * actions through the bundle's {@code Karaf-Commands} header. The actions stay thin; listing,
 * checking, polling and measuring live in plain classes that the unit tests drive without Karaf.
 * Private: nothing here is API.
 */
package org.rpcrdma4j.shell;
